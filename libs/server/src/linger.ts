import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * For routes that may answer before the request body has all arrived (a 413 mid-stream, a
 * refused file): once the answer is sent, the rest of the body is read and dropped for at
 * most `ms`, then the connection is cut, as nginx's lingering close does. Closing at once
 * (`Connection: close`) resets a connection the client is still writing to, and the reset
 * can destroy the answer in the client's buffer before it reads it.
 */
export function lingerAfterEarlyAnswer(req: IncomingMessage, res: ServerResponse, ms: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), ms);
    timer.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}
