import { createServer } from 'node:http';
import { MissingVaError, OK_ANSWER, verifyCallbackRequest } from 'paycli/callback';

// The merchant VA of the environment that sends the callbacks (sandbox and production differ).
const va = process.env.IPAYMU_VA;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const result = verifyCallbackRequest({ rawBody: Buffer.concat(chunks), headers: req.headers, va });
      if (!result.ok) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(result.reason);
        return;
      }
      // Look the order up by result.fields?.reference_id and mark it paid once: the gateway
      // retries, so the same callback can arrive more than once.
      res.writeHead(200, { 'content-type': 'application/json' }).end(OK_ANSWER);
    } catch (err) {
      if (err instanceof MissingVaError) res.writeHead(500, { 'content-type': 'text/plain' }).end('IPAYMU_VA is not set');
      else throw err;
    }
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
