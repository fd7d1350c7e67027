<?php
// The shop: GET /pay creates a VA payment whose callback comes back to POST /callback; the callback
// is checked and logged; GET /callbacks shows what arrived. Run with `php -S 0.0.0.0:8000 router.php`.
require __DIR__ . '/ipaymu.php';

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$log = getenv('CALLBACK_LOG') ?: sys_get_temp_dir() . '/callbacks.jsonl';
header('Content-Type: application/json');

if ($path === '/pay' && $_SERVER['REQUEST_METHOD'] === 'GET') {
    $shop = rtrim(getenv('SHOP_URL') ?: 'http://127.0.0.1:8000', '/');
    $answer = ipaymu_call('v2/payment/direct', [
        'name' => 'Putu Ayu',
        'phone' => '08123456789',
        'email' => 'putu@mail.com',
        'amount' => 125000,
        'notifyUrl' => "$shop/callback",
        'referenceId' => 'ORDER-' . date('YmdHis') . '-' . bin2hex(random_bytes(2)),
        'paymentMethod' => 'va',
        'paymentChannel' => 'bca',
        'product' => ['Kopi Kintamani'],
        'qty' => [2],
        'price' => [62500],
    ]);
    http_response_code(($answer['Status'] ?? 0) === 200 ? 200 : 502);
    echo json_encode($answer, JSON_UNESCAPED_SLASHES), "\n";
    return;
}

if ($path === '/callback' && $_SERVER['REQUEST_METHOD'] === 'POST') {
    $raw = file_get_contents('php://input');
    $type = $_SERVER['CONTENT_TYPE'] ?? '';
    if (stripos($type, 'json') !== false) {
        $fields = json_decode($raw, true) ?? [];
    } else {
        parse_str($raw, $fields);
    }
    $valid = ipaymu_callback_is_valid($fields, $_SERVER['HTTP_X_SIGNATURE'] ?? '', getenv('IPAYMU_VA') ?: '');
    file_put_contents($log, json_encode(['valid' => $valid, 'fields' => $fields], JSON_UNESCAPED_SLASHES) . "\n", FILE_APPEND | LOCK_EX);
    if (!$valid) {
        http_response_code(400);
        header('Content-Type: text/plain');
        echo "invalid signature\n";
        return;
    }
    // Mark the order (fields.reference_id) paid here, once: the gateway retries, so a callback can repeat.
    echo json_encode(['status' => 'OK']), "\n";
    return;
}

if ($path === '/callbacks') {
    $lines = is_file($log) ? file($log, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) : [];
    echo '[', implode(',', $lines), "]\n";
    return;
}

http_response_code(404);
echo json_encode(['error' => 'not found']), "\n";
