/**
 * paycli as a library: the same core the CLI uses, for merchants' own servers and tests.
 * The emulator is exported separately as `paycli/sandbox`.
 */
export { signRequest, hashRequestBody, maskApiKey, maskSecret } from './core/signing/request-signature.js';
export { jakartaTimestamp, formatJakarta, isoJakarta } from './core/time.js';
export type { RequestSignature, RequestSignatureInput } from './core/signing/request-signature.js';
export { canonicalizeCallback, GATEWAY_CANONICAL } from './core/signing/callback-canonical.js';
export type { CallbackFields, CallbackValue, CanonicalOptions } from './core/signing/callback-canonical.js';
export { signCallback, verifyCallback, signaturesEqual, MissingVaError } from './core/signing/callback-signature.js';
export type { VerifyCallbackInput, VerifyCallbackResult } from './core/signing/callback-signature.js';
export { diagnoseCallback, diagnoseCallbackBounded, DIAGNOSIS_BUDGET, VARIATIONS } from './core/signing/variants.js';
export type { Diagnosis, CandidateKey, Variation, DiagnosisBudget, BoundedDiagnosis } from './core/signing/variants.js';
export { checkCallback } from './core/callback/check.js';
export type { CallbackCheck, CheckCallbackOptions } from './core/callback/check.js';
export { parseCallbackBody, parseFormBody, parseJsonBody, MalformedPayloadError } from './core/callback/parse.js';
export type { BodyFormat } from './core/callback/parse.js';
export { parseCallbackInput, parseHttpCapture } from './core/callback/capture.js';
export type { ParsedCallback } from './core/callback/capture.js';
export { buildCallbackFields, signCallbackRequest, encodeFormBody, encodeJsonCallbackBody } from './core/callback/build.js';
export { buildSignedRequest, toCurl } from './core/api/signed-request.js';
export { encodePaymentBody } from './core/api/payments.js';
export type { DirectPaymentData } from './core/api/payments.js';
export { PAYMENT_METHODS, validatePaymentRequest, channelsOf } from './core/payment-rules.js';
export type { DirectPaymentRequest, PaymentItem, FieldErrors } from './core/payment-rules.js';
export { startListener, retryKey } from './core/listener/server.js';
export type { ListenerOptions, ListenerHandle, ListenerEvent, CallbackEventStore, StoredEvent } from './core/listener/server.js';
export { PaycliError, UsageError, GatewayError, AuthError, NetworkError, SignatureError } from './core/errors.js';
