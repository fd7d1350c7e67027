import express from 'express';
import { MissingVaError, OK_ANSWER, verifyCallbackRequest } from 'paycli/callback';

const va = process.env.IPAYMU_VA;
const app = express();

// The raw bytes, not a parsed body: the signature covers the body exactly as the gateway sent it.
app.post('/ipaymu/callback', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
  try {
    const rawBody: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const result = verifyCallbackRequest({ rawBody, headers: req.headers, va });
    if (!result.ok) {
      res.status(400).type('text/plain').send(result.reason);
      return;
    }
    // Look the order up by result.fields?.reference_id and mark it paid once (the gateway retries).
    res.status(200).type('application/json').send(OK_ANSWER);
  } catch (err) {
    if (err instanceof MissingVaError) res.status(500).type('text/plain').send('IPAYMU_VA is not set');
    else throw err;
  }
});
app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
