<?php
// iPaymu callbacks, done the way a shop that must not lose or double-count money needs them:
// signature checked over the gateway's canonical form (non-ASCII included), the payment confirmed
// through check transaction, and each order fulfilled once under concurrent copies (flock).
// Plain PHP 8, no extension beyond json and openssl. Configuration from the environment:
//   IPAYMU_VA, IPAYMU_API_KEY, IPAYMU_BASE_URL (https://my.ipaymu.com/api/ or the emulator's),
//   ORDERS_FILE (where orders are kept; a database in a real shop).
// HANDLER_BUG turns on one deliberate bug (the tests prove paycli test-handler catches each).

declare(strict_types=1);

function bug(string $name): bool
{
    return in_array($name, explode(',', (string) getenv('HANDLER_BUG')), true);
}

/** The canonical JSON the gateway signs: 4 integers, is_escrow a boolean, additional_info an array, the rest strings, keys sorted. */
function ipaymu_canonical(array $fields): string
{
    unset($fields['signature']);
    $out = [];
    foreach ($fields as $key => $value) {
        $key = (string) $key;
        if (in_array($key, ['trx_id', 'status_code', 'transaction_status_code', 'paid_off'], true)) {
            $out[$key] = (int) $value;
        } elseif ($key === 'is_escrow') {
            $out[$key] = filter_var($value, FILTER_VALIDATE_BOOLEAN);
        } elseif ($key === 'additional_info') {
            $out[$key] = is_string($value) ? (json_decode($value === '' ? '[]' : $value, true) ?? $value) : $value;
        } else {
            $out[$key] = is_bool($value) ? ($value ? 'true' : 'false') : (string) $value;
        }
    }
    $out['additional_info'] ??= [];
    ksort($out, SORT_STRING);
    if (bug('json-stringify')) {
        // The gateway's JavaScript sample: JSON.stringify (raw UTF-8) with only "/" escaped afterwards.
        return str_replace('/', '\/', json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES));
    }
    return json_encode($out); // PHP's defaults are the gateway's: "\/" and "\u00d6"
}

/** The callback's fields from the raw body (form or JSON). */
function ipaymu_fields(string $body, string $contentType): ?array
{
    if (str_contains(strtolower($contentType), 'json')) {
        $v = json_decode($body, true);
        return is_array($v) ? $v : null;
    }
    parse_str($body, $fields);
    return $fields;
}

function ipaymu_signature_ok(array $fields, string $signature): bool
{
    if (bug('no-signature-check')) return true;
    $va = (string) getenv('IPAYMU_VA');
    return $signature !== '' && hash_equals(hash_hmac('sha256', ipaymu_canonical($fields), $va), strtolower($signature));
}

/** Paid: status_code 1 with transaction_status_code 1 (settled), 6 (settled later) or 7 (escrow, held for the merchant). */
function ipaymu_is_paid(array $f): bool
{
    if (bug('any-status-paid')) return true;
    $tsc = isset($f['transaction_status_code']) ? (int) $f['transaction_status_code'] : 1;
    $paidCodes = bug('six-is-refund') ? [1, 7] : (bug('seven-is-expired') ? [1, 6] : [1, 6, 7]);
    return (int) ($f['status_code'] ?? 0) === 1 && in_array($tsc, $paidCodes, true);
}

/** Check transaction, signed with the API key: the gateway's own record of the trx (null when it has none). */
function ipaymu_check_transaction(int $trxId): ?array
{
    $va = (string) getenv('IPAYMU_VA');
    $key = (string) getenv('IPAYMU_API_KEY');
    $body = json_encode(['transactionId' => $trxId]);
    $signature = hash_hmac('sha256', 'POST:' . $va . ':' . strtolower(hash('sha256', $body)) . ':' . $key, $key);
    $context = stream_context_create(['http' => [
        'method' => 'POST', 'ignore_errors' => true, 'timeout' => 10,
        'header' => "Content-Type: application/json\r\nAccept: application/json\r\nva: $va\r\nsignature: $signature\r\ntimestamp: " . date('YmdHis') . "\r\n",
        'content' => $body,
    ]]);
    $answer = @file_get_contents(rtrim((string) getenv('IPAYMU_BASE_URL'), '/') . '/v2/transaction', false, $context);
    $json = is_string($answer) ? json_decode($answer, true) : null;
    return is_array($json) && ($json['Status'] ?? 0) === 200 && is_array($json['Data'] ?? null) ? $json['Data'] : null;
}

/** The orders as stored (a database table in a real shop). */
function read_orders(): array
{
    $text = @file_get_contents((string) getenv('ORDERS_FILE'));
    return is_string($text) && $text !== '' ? (json_decode($text, true) ?? []) : [];
}

/** Stores the orders whole (a new file, synced, renamed over the old one): a reader sees the old or the new, never half. */
function write_orders(array $orders): void
{
    $tmp = getenv('ORDERS_FILE') . '.' . getmypid() . '.tmp';
    $fh = fopen($tmp, 'w');
    fwrite($fh, json_encode($orders, JSON_PRETTY_PRINT));
    fflush($fh);
    fsync($fh);
    fclose($fh);
    rename($tmp, (string) getenv('ORDERS_FILE'));
}

/** Runs $change on the orders under an exclusive lock, and stores what it returns before the lock is released. */
function with_orders(callable $change): mixed
{
    $lock = fopen(getenv('ORDERS_FILE') . '.lock', 'c');
    if (!bug('no-lock')) flock($lock, LOCK_EX);
    try {
        [$orders, $result] = $change(read_orders());
        write_orders($orders);
        return $result;
    } finally {
        flock($lock, LOCK_UN);
        fclose($lock);
    }
}

/**
 * The callback: 200 once the outcome is stored (the gateway retries anything else), 400 for a bad
 * signature, 409 while the gateway does not confirm a paid callback (so it is retried).
 */
function ipaymu_handle_callback(string $body, string $contentType, string $signature): array
{
    $f = ipaymu_fields($body, $contentType);
    if ($f === null || !ipaymu_signature_ok($f, $signature)) return [400, ['status' => 'invalid signature']];
    $ref = (string) ($f['reference_id'] ?? '');
    $trx = (int) ($f['trx_id'] ?? 0);
    $paid = ipaymu_is_paid($f);
    $refund = (int) ($f['status_code'] ?? 0) === 3 || (int) ($f['transaction_status_code'] ?? 0) === 3;
    if ($paid && !bug('no-confirm')) {
        // The signature proves the VA signed it; the VA is no secret. The gateway's record decides.
        $record = ipaymu_check_transaction($trx);
        if ($record === null || !in_array((int) $record['Status'], [1, 6, 7], true)) return [409, ['status' => 'not confirmed by the gateway']];
        if ((int) $record['Amount'] !== (int) ($f['sub_total'] ?? $f['amount'] ?? 0) && !bug('no-amount-check')) return [409, ['status' => 'amount differs from the gateway']];
    }
    return with_orders(function (array $orders) use ($f, $ref, $trx, $paid, $refund) {
        $o = $orders[$ref] ?? null;
        if ($o === null && bug('create-unknown')) $o = ['reference_id' => $ref, 'trx_id' => $trx, 'amount' => (int) ($f['amount'] ?? 0), 'status' => 'unpaid'];
        if ($o === null || ($o['trx_id'] ?? $trx) !== $trx) return [$orders, [200, ['status' => 'unknown order: ignored']]];
        $amount = (int) ($f['sub_total'] ?? $f['amount'] ?? 0);
        if ($paid && $amount !== $o['amount'] && !bug('no-amount-check')) return [$orders, [200, ['status' => 'amount differs from the order: not fulfilled']]];
        if ($paid && ($o['status'] === 'unpaid' || bug('no-idempotency') || ($o['status'] === 'refunded' && bug('replay-after-refund')))) {
            if (bug('no-lock')) usleep(1500000); // a slow fulfilment between the read and the write, no lock around them
            $o['status'] = 'paid';
            ship($ref); // inside the lock: once per order
        } elseif ($refund && $o['status'] === 'paid') {
            $o['status'] = 'refunded';
        } elseif (!$paid && !$refund && bug('downgrade')) {
            $o['status'] = 'unpaid';
        }
        $o['gateway_status'] = (string) ($f['status'] ?? '');
        $orders[$ref] = $o;
        return [$orders, [200, ['status' => 'OK']]];
    });
}

/** Fulfilment, the side effect that must happen once: here a line in a shipments log; in a shop, the goods sent. */
function ship(string $ref): void
{
    file_put_contents(getenv('ORDERS_FILE') . '.shipments', json_encode($ref) . "\n", FILE_APPEND | LOCK_EX);
}

/** The order as the probe shows it: its stored state, whether it is paid, and how often it was shipped. */
function ipaymu_order_state(string $ref): ?array
{
    $o = read_orders()[$ref] ?? null;
    if ($o === null) return null;
    $shipped = @file(getenv('ORDERS_FILE') . '.shipments', FILE_IGNORE_NEW_LINES) ?: [];
    return $o + ['paid' => $o['status'] === 'paid', 'fulfilments' => count(array_keys($shipped, json_encode($ref), true))];
}

/** What the shop's checkout does once the gateway created the payment: an unpaid order. */
function ipaymu_record_order(string $ref, int $trx, int $amount): void
{
    with_orders(function (array $orders) use ($ref, $trx, $amount) {
        $orders[$ref] = ['reference_id' => $ref, 'trx_id' => $trx, 'amount' => $amount, 'status' => 'unpaid'];
        return [$orders, null];
    });
}
