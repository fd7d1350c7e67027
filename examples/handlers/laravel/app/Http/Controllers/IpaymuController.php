<?php

namespace App\Http\Controllers;

use App\Support\IpaymuCallback;
use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Http;

/**
 * routes/web.php (exclude the callback from CSRF in bootstrap/app.php or VerifyCsrfToken):
 *   Route::post('/ipaymu/callback', [IpaymuController::class, 'callback']);
 *   Route::get('/orders/{reference}', [IpaymuController::class, 'order']);
 * Tables: orders (reference_id unique, trx_id, amount, status, gateway_status), shipments (reference_id).
 * config/services.php: 'ipaymu' => ['va' => env('IPAYMU_VA'), 'api_key' => env('IPAYMU_API_KEY'), 'base_url' => env('IPAYMU_BASE_URL')].
 */
class IpaymuController
{
    /** 200 once stored (the gateway retries anything else), 400 for a bad signature, 409 while the gateway does not confirm. */
    public function callback(Request $request): JsonResponse
    {
        $f = str_contains((string) $request->header('Content-Type'), 'json') ? (json_decode($request->getContent(), true) ?? []) : $request->all();
        if (!IpaymuCallback::signatureOk($f, (string) $request->header('X-Signature'), (string) config('services.ipaymu.va'))) {
            return response()->json(['status' => 'invalid signature'], 400);
        }
        $ref = (string) ($f['reference_id'] ?? '');
        $trx = (int) ($f['trx_id'] ?? 0);
        $amount = (int) ($f['sub_total'] ?? $f['amount'] ?? 0);
        $paid = IpaymuCallback::isPaid($f);
        $refund = IpaymuCallback::isRefund($f);
        if ($paid && !IpaymuCallback::bug('no-confirm')) {
            // The signature proves the VA signed it; the VA is no secret. The gateway's record decides.
            $body = json_encode(['transactionId' => $trx]);
            $answer = Http::withHeaders(IpaymuCallback::requestHeaders($body, (string) config('services.ipaymu.va'), (string) config('services.ipaymu.api_key')))
                ->withBody($body, 'application/json')->timeout(10)->post(rtrim((string) config('services.ipaymu.base_url'), '/') . '/v2/transaction');
            $record = $answer->json('Data');
            if ($answer->json('Status') !== 200 || !is_array($record) || !in_array((int) $record['Status'], [1, 6, 7], true)) {
                return response()->json(['status' => 'not confirmed by the gateway'], 409);
            }
            if ((int) $record['Amount'] !== $amount && !IpaymuCallback::bug('no-amount-check')) {
                return response()->json(['status' => 'amount differs from the gateway'], 409);
            }
        }
        $status = DB::transaction(function () use ($f, $ref, $trx, $amount, $paid, $refund) {
            $order = DB::table('orders')->where('reference_id', $ref)->lockForUpdate()->first();
            if ($order === null && IpaymuCallback::bug('create-unknown')) {
                DB::table('orders')->insert(['reference_id' => $ref, 'trx_id' => $trx, 'amount' => $amount, 'status' => 'unpaid']);
                $order = DB::table('orders')->where('reference_id', $ref)->lockForUpdate()->first();
            }
            if ($order === null || (int) $order->trx_id !== $trx) return 'unknown order: ignored';
            if ($paid && $amount !== (int) $order->amount && !IpaymuCallback::bug('no-amount-check')) return 'amount differs from the order: not fulfilled';
            $next = $order->status;
            if ($paid && ($order->status === 'unpaid' || IpaymuCallback::bug('no-idempotency') || ($order->status === 'refunded' && IpaymuCallback::bug('replay-after-refund')))) {
                if (IpaymuCallback::bug('no-lock')) usleep(1500000); // a slow fulfilment, without the transaction's lock
                $next = 'paid';
                DB::table('shipments')->insert(['reference_id' => $ref]); // the fulfilment, in the same transaction
            } elseif ($refund && $order->status === 'paid') {
                $next = 'refunded';
            } elseif (!$paid && !$refund && IpaymuCallback::bug('downgrade')) {
                $next = 'unpaid';
            }
            DB::table('orders')->where('reference_id', $ref)->update(['status' => $next, 'gateway_status' => (string) ($f['status'] ?? '')]);
            return 'OK';
        });
        return response()->json(['status' => $status]);
    }

    /** The order's state for the shop (and for paycli test-handler --order-url); 404 when unknown. */
    public function order(string $reference): JsonResponse
    {
        $order = DB::table('orders')->where('reference_id', $reference)->first();
        if ($order === null) return response()->json(['error' => 'no such order'], 404);
        $shipped = DB::table('shipments')->where('reference_id', $reference)->count();
        return response()->json((array) $order + ['paid' => $order->status === 'paid', 'fulfilments' => $shipped]);
    }

    /** Stands in for the checkout in tests: an unpaid order for a payment the gateway created. */
    public function testOrder(Request $request): JsonResponse
    {
        DB::transaction(fn () => DB::table('orders')->insert(['reference_id' => (string) $request->input('reference_id'), 'trx_id' => (int) $request->input('trx_id'), 'amount' => (int) $request->input('amount'), 'status' => 'unpaid']));
        return response()->json(['ok' => true], 201);
    }
}
