<?php
// The shop's routes (PHP_CLI_SERVER_WORKERS=4 php -S 127.0.0.1:8000 index.php: workers, so that copies run at once):
//   POST /ipaymu/callback      the gateway's callback
//   GET  /orders/{reference}   the order's state as JSON, 404 when unknown (what test-handler --order-url reads)
//   POST /test/orders          stands in for the checkout in tests (only with ALLOW_TEST_ORDERS=1)
require __DIR__ . '/ipaymu.php';

function answer(int $status, array $body): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($body), "\n";
}

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$method = $_SERVER['REQUEST_METHOD'];

if ($method === 'POST' && $path === '/ipaymu/callback') {
    [$status, $body] = ipaymu_handle_callback(file_get_contents('php://input'), $_SERVER['CONTENT_TYPE'] ?? '', $_SERVER['HTTP_X_SIGNATURE'] ?? '');
    answer($status, $body);
} elseif ($method === 'GET' && preg_match('#^/orders/(.+)$#', $path, $m)) {
    $order = ipaymu_order_state(rawurldecode($m[1]));
    $order === null ? answer(404, ['error' => 'no such order']) : answer(200, $order);
} elseif ($method === 'POST' && $path === '/test/orders' && getenv('ALLOW_TEST_ORDERS') === '1') {
    $o = json_decode(file_get_contents('php://input'), true);
    ipaymu_record_order((string) $o['reference_id'], (int) $o['trx_id'], (int) $o['amount']);
    answer(201, ['ok' => true]);
} else {
    answer(404, ['error' => 'not found']);
}
