// The physical limit for the listener: a bare node:http server that reads the body and answers 200.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}'));
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
