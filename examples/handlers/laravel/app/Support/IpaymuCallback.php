<?php

namespace App\Support;

/**
 * The gateway's callback rules: the canonical JSON it signs (PHP's json_encode: "\/" and "\u00d6"),
 * the signature check with the VA, and which statuses are paid.
 */
final class IpaymuCallback
{
    private const INTEGERS = ['trx_id', 'status_code', 'transaction_status_code', 'paid_off'];

    public static function bug(string $name): bool
    {
        return in_array($name, explode(',', (string) getenv('HANDLER_BUG')), true);
    }

    public static function canonical(array $fields): string
    {
        unset($fields['signature']);
        $out = [];
        foreach ($fields as $key => $value) {
            $key = (string) $key;
            $out[$key] = match (true) {
                in_array($key, self::INTEGERS, true) => (int) $value,
                $key === 'is_escrow' => filter_var($value, FILTER_VALIDATE_BOOLEAN),
                $key === 'additional_info' => is_string($value) ? (json_decode($value === '' ? '[]' : $value, true) ?? $value) : $value,
                default => is_bool($value) ? ($value ? 'true' : 'false') : (string) $value,
            };
        }
        $out['additional_info'] ??= [];
        ksort($out, SORT_STRING);
        if (self::bug('json-stringify')) {
            return str_replace('/', '\/', json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES));
        }
        return json_encode($out);
    }

    public static function signatureOk(array $fields, string $signature, string $va): bool
    {
        if (self::bug('no-signature-check')) return true;
        return $signature !== '' && hash_equals(hash_hmac('sha256', self::canonical($fields), $va), strtolower($signature));
    }

    /** Paid: status_code 1 with transaction_status_code 1 (settled), 6 (settled later) or 7 (escrow). */
    public static function isPaid(array $f): bool
    {
        if (self::bug('any-status-paid')) return true;
        $tsc = isset($f['transaction_status_code']) ? (int) $f['transaction_status_code'] : 1;
        $codes = self::bug('six-is-refund') ? [1, 7] : (self::bug('seven-is-expired') ? [1, 6] : [1, 6, 7]);
        return (int) ($f['status_code'] ?? 0) === 1 && in_array($tsc, $codes, true);
    }

    public static function isRefund(array $f): bool
    {
        return (int) ($f['status_code'] ?? 0) === 3 || (int) ($f['transaction_status_code'] ?? 0) === 3;
    }

    /** The headers of a signed API request (the API key signs METHOD:VA:sha256(body):KEY). */
    public static function requestHeaders(string $body, string $va, string $apiKey): array
    {
        $signature = hash_hmac('sha256', 'POST:' . $va . ':' . strtolower(hash('sha256', $body)) . ':' . $apiKey, $apiKey);
        return ['Content-Type' => 'application/json', 'Accept' => 'application/json', 'va' => $va, 'signature' => $signature, 'timestamp' => date('YmdHis')];
    }
}
