<?php
// A merchant's PHP client as the official PHP SDK behaves: each body json_encode'd with
// JSON_UNESCAPED_SLASHES (non-ASCII as \uXXXX), signed as POST:VA:sha256(body):KEY with the API key,
// sent with the va/signature/timestamp headers. Input (stdin): {"base", "va", "key", "calls": [{"path", "body"}]}.
// Output: one JSON array of {"status", "body"} (the decoded answers).
$in = json_decode(stream_get_contents(STDIN), true);
$out = [];
foreach ($in['calls'] as $call) {
    $body = json_encode($call['body'], JSON_UNESCAPED_SLASHES);
    $signature = hash_hmac('sha256', 'POST:' . $in['va'] . ':' . strtolower(hash('sha256', $body)) . ':' . $in['key'], $in['key']);
    $context = stream_context_create(['http' => [
        'method' => 'POST',
        'header' => "Content-Type: application/json\r\nva: {$in['va']}\r\nsignature: $signature\r\ntimestamp: " . date('YmdHis') . "\r\n",
        'content' => $body,
        'ignore_errors' => true,
        'timeout' => 10,
    ]]);
    $answer = file_get_contents($in['base'] . $call['path'], false, $context);
    preg_match('/^HTTP\/\S+ (\d{3})/', $http_response_header[0] ?? '', $m);
    $out[] = ['status' => (int) ($m[1] ?? 0), 'body' => json_decode($answer, true)];
}
echo json_encode($out, JSON_UNESCAPED_SLASHES), "\n";
