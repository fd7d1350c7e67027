// The physical limit for batch verification: parse each JSONL line and HMAC its body, nothing else.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [file, va] = process.argv.slice(2);
let n = 0;
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line) continue;
  const capture = JSON.parse(line);
  createHmac('sha256', va).update(capture.body).digest('hex');
  n++;
}
console.log(n);
