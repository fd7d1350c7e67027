import type { IncomingMessage, ServerResponse } from 'node:http';

/** Server-sent events: one `data:` message per batch of changes (coalesced for 50 ms). */
export class LiveHub {
  private clients = new Set<ServerResponse>();
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private version = 0;

  attach(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.write(`retry: 1000\n\n`);
    this.clients.add(res);
    const drop = () => this.clients.delete(res);
    req.on('close', drop);
    res.on('close', drop);
    if (!this.heartbeat) {
      this.heartbeat = setInterval(() => {
        for (const c of this.clients) c.write(': keep-alive\n\n');
      }, 20_000);
      this.heartbeat.unref();
    }
  }

  /** Something changed: tell every open page (at most once per 50 ms). */
  changed(): void {
    this.version++;
    if (this.timer || this.clients.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const c of this.clients) c.write(`data: ${this.version}\n\n`);
    }, 50);
    this.timer.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}
