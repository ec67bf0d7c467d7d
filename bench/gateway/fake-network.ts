import { createServer } from 'node:http';

/**
 * The chat network's Graph API as the benchmark needs it, in its own process: a send
 * answers the Cloud API's JSON at once, an upload is read to the end and answered with an id.
 */
const port = Number(process.env.PORT);
let n = 0;
createServer((req, res) => {
  const chunks: Buffer[] = [];
  const isMedia = req.url!.endsWith('/media');
  req.on('data', (c: Buffer) => {
    if (!isMedia) chunks.push(c);
  });
  req.on('end', () => {
    n++;
    if (isMedia) return void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"id":"9${n}"}`);
    const to = /"to":"([^"]*)"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '';
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"messaging_product":"whatsapp","contacts":[{"input":"${to}","wa_id":"${to}"}],"messages":[{"id":"wamid.BENCH${n}"}]}`);
  });
}).listen(port, '127.0.0.1', () => process.stderr.write(`fake network on ${port}\n`));
