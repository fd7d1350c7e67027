<?php
// A minimal iPaymu API v2 client in the request style of the official PHP SDK: the body is
// json_encode'd with JSON_UNESCAPED_SLASHES, signed as POST:VA:sha256(body):API_KEY with
// HMAC-SHA256 keyed with the API key, and sent with the va, signature and timestamp headers.
// Point IPAYMU_BASE_URL at the emulator (http://paycli:4010/api) or at the gateway's sandbox.

function ipaymu_call(string $path, array $body): array
{
    $base = rtrim(getenv('IPAYMU_BASE_URL') ?: 'https://sandbox.ipaymu.com/api', '/');
    $va = getenv('IPAYMU_VA');
    $key = getenv('IPAYMU_API_KEY');
    $json = json_encode($body, JSON_UNESCAPED_SLASHES);
    $signature = hash_hmac('sha256', 'POST:' . $va . ':' . strtolower(hash('sha256', $json)) . ':' . $key, $key);
    $context = stream_context_create(['http' => [
        'method' => 'POST',
        'header' => "Content-Type: application/json\r\nAccept: application/json\r\nva: $va\r\nsignature: $signature\r\ntimestamp: " . date('YmdHis') . "\r\n",
        'content' => $json,
        'ignore_errors' => true,
        'timeout' => 15,
    ]]);
    $answer = @file_get_contents("$base/$path", false, $context);
    if ($answer === false) {
        return ['Status' => 0, 'Success' => false, 'Message' => "cannot reach $base"];
    }
    return json_decode($answer, true) ?? ['Status' => 0, 'Success' => false, 'Message' => 'not JSON'];
}

/**
 * Whether a callback is authentic: HMAC-SHA256, keyed with the merchant VA (not the API key), over
 * the canonical JSON of the body's fields (the gateway's reference check: integer and boolean casts,
 * keys sorted, json_encode with default flags).
 */
function ipaymu_callback_is_valid(array $fields, string $signature, string $va): bool
{
    unset($fields['signature']);
    foreach ($fields as $k => $v) {
        if (in_array($k, ['trx_id', 'status_code', 'transaction_status_code', 'paid_off'], true)) {
            $fields[$k] = (int) $v;
        } elseif ($k === 'is_escrow') {
            $fields[$k] = $v === true || $v === 1 || $v === '1' || (is_string($v) && strtolower($v) === 'true');
        } elseif ($k === 'additional_info') {
            if ($v === null || $v === '' || $v === '[]') $fields[$k] = [];
        } elseif ($v === null) {
            $fields[$k] = '';
        } elseif (!is_array($v)) {
            $fields[$k] = (string) $v;
        }
    }
    if (!array_key_exists('additional_info', $fields)) $fields['additional_info'] = [];
    ksort($fields, SORT_STRING);
    return hash_equals(hash_hmac('sha256', json_encode($fields), $va), strtolower($signature));
}
