import { createServer } from 'node:http';
import { checkCallback, MalformedPayloadError, MissingVaError, parseCallbackBody } from 'paycli';

// The merchant VA of the environment that sends the callbacks (sandbox and production differ).
const va = process.env.IPAYMU_VA;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const body = Buffer.concat(chunks).toString('utf8');
      const { fields } = parseCallbackBody(body, req.headers['content-type']);
      const check = checkCallback(fields, String(req.headers['x-signature'] ?? ''), va);
      if (check.verdict === 'invalid') {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(check.reason);
        return;
      }
      // Look the order up by fields.reference_id and mark it paid once: the gateway retries,
      // so the same callback can arrive more than once.
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}');
    } catch (err) {
      if (err instanceof MalformedPayloadError) res.writeHead(400, { 'content-type': 'text/plain' }).end(err.message);
      else if (err instanceof MissingVaError) res.writeHead(500, { 'content-type': 'text/plain' }).end('IPAYMU_VA is not set');
      else throw err;
    }
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
