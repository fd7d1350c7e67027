<?php
// php -S 127.0.0.1:8000 index.php: the routes of routes/web.php, dispatched by hand (see shim/).
require __DIR__ . '/shim/laravel.php';
require __DIR__ . '/app/Support/IpaymuCallback.php';
require __DIR__ . '/app/Http/Controllers/IpaymuController.php';

use App\Http\Controllers\IpaymuController;
use Illuminate\Http\Request;

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$method = $_SERVER['REQUEST_METHOD'];
$controller = new IpaymuController();
$response = match (true) {
    $method === 'POST' && $path === '/ipaymu/callback' => $controller->callback(Request::capture()),
    $method === 'GET' && preg_match('#^/orders/(.+)$#', $path, $m) === 1 => $controller->order(rawurldecode($m[1])),
    $method === 'POST' && $path === '/test/orders' && getenv('ALLOW_TEST_ORDERS') === '1' => $controller->testOrder(Request::capture()),
    default => response()->json(['error' => 'not found'], 404),
};
$response->send();
