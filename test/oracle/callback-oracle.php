<?php
// The gateway's reference callback check, written as a merchant's PHP server does it: PHP's own
// parse_str / json_decode, (int) and (string) casts, ksort and json_encode with default flags,
// hash_hmac. paycli's TypeScript must agree with it on every payload.
$cases = json_decode(file_get_contents($argv[1]), true);
$ints = ['trx_id', 'status_code', 'transaction_status_code', 'paid_off'];
$out = [];
foreach ($cases as $case) {
    if ($case['format'] === 'form') {
        parse_str($case['body'], $data);
    } else {
        $data = json_decode($case['body'], true);
    }
    unset($data['signature']);
    foreach ($data as $k => $v) {
        if (in_array($k, $ints, true)) {
            $data[$k] = is_array($v) ? (count($v) > 0 ? 1 : 0) : (int)$v;
        } elseif ($k === 'is_escrow') {
            $data[$k] = $v === true || $v === 1 || (is_string($v) && ($v === '1' || strtolower($v) === 'true'));
        } elseif ($k === 'additional_info') {
            if ($v === null || $v === '' || $v === '[]') $data[$k] = [];
        } elseif (is_null($v)) {
            $data[$k] = '';
        } elseif (!is_array($v)) {
            $data[$k] = (string)$v;
        }
    }
    if (!array_key_exists('additional_info', $data)) $data['additional_info'] = [];
    ksort($data, SORT_STRING);
    $json = json_encode($data);
    $out[] = ['json' => $json, 'hmac' => hash_hmac('sha256', $json, $case['va'])];
}
echo json_encode($out);
