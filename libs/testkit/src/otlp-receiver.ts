import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as an OTLP exporter sent it: ids in lower-case hex, attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, unknown> }>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface OtlpReceiver {
  /** The base to set as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts to `<base>/v1/traces`). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[];
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on loopback, standing in for a collector: it takes `POST /v1/traces` as
 * protobuf (what the services' exporter sends) or JSON, optionally gzipped, and keeps every span.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(
      (body) => {
        if (req.method !== 'POST' || !req.url?.startsWith('/v1/traces')) {
          res.writeHead(404).end();
          return;
        }
        const raw = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
        const json = (req.headers['content-type'] ?? '').includes('json');
        spans.push(...(json ? fromJson(JSON.parse(raw.toString('utf8'))) : fromProtobuf(raw)));
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    trace: (traceId) => spans.filter((span) => span.traceId === traceId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// --- protobuf (opentelemetry/proto/collector/trace/v1): the fields read, by number ---

type Field = { no: number; wire: number; value: bigint | Buffer };

/** The fields of one message, in order (varints as bigint, length-delimited as Buffer, fixed as bigint). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[at++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 1) {
      out.push({ no, wire, value: buf.readBigUInt64LE(at) });
      at += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      out.push({ no, wire, value: buf.subarray(at, at + len) });
      at += len;
    } else if (wire === 5) {
      out.push({ no, wire, value: BigInt(buf.readUInt32LE(at)) });
      at += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const all = (fs: Field[], no: number) => fs.filter((f) => f.no === no).map((f) => f.value);
const bytes = (fs: Field[], no: number) => (all(fs, no)[0] as Buffer | undefined) ?? Buffer.alloc(0);
const str = (fs: Field[], no: number) => bytes(fs, no).toString('utf8');
const num = (fs: Field[], no: number) => Number((all(fs, no)[0] as bigint | undefined) ?? 0n);

function anyValue(buf: Buffer): unknown {
  const [f] = fields(buf);
  if (!f) return null;
  switch (f.no) {
    case 1:
      return (f.value as Buffer).toString('utf8');
    case 2:
      return f.value === 1n;
    case 3:
      return Number(BigInt.asIntN(64, f.value as bigint));
    case 4: {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(f.value as bigint);
      return b.readDoubleLE(0);
    }
    case 5:
      return all(fields(f.value as Buffer), 1).map((v) => anyValue(v as Buffer));
    default:
      return (f.value as Buffer).toString('hex');
  }
}

function attributes(list: Array<bigint | Buffer>): Record<string, unknown> {
  return Object.fromEntries(
    list.map((kv) => {
      const fs = fields(kv as Buffer);
      return [str(fs, 1), anyValue(bytes(fs, 2))];
    }),
  );
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of all(fields(body), 1)) {
    const rs = fields(resourceSpans as Buffer);
    const resource = attributes(all(fields(bytes(rs, 1)), 1));
    for (const scopeSpans of all(rs, 2)) {
      for (const raw of all(fields(scopeSpans as Buffer), 2)) {
        const s = fields(raw as Buffer);
        out.push({
          service: String(resource['service.name'] ?? ''),
          traceId: bytes(s, 1).toString('hex'),
          spanId: bytes(s, 2).toString('hex'),
          parentSpanId: bytes(s, 4).toString('hex'),
          name: str(s, 5),
          kind: num(s, 6),
          attributes: attributes(all(s, 9)),
          links: all(s, 13).map((l) => {
            const lf = fields(l as Buffer);
            return { traceId: bytes(lf, 1).toString('hex'), spanId: bytes(lf, 2).toString('hex'), attributes: attributes(all(lf, 4)) };
          }),
          status: num(fields(bytes(s, 15)), 3),
        });
      }
    }
  }
  return out;
}

// --- JSON (OTLP/HTTP JSON: ids as hex strings, values as { stringValue } and the like) ---

interface JsonKeyValue {
  key: string;
  value: Record<string, unknown>;
}

function jsonValue(value: Record<string, unknown> | undefined): unknown {
  if (!value) return null;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return ((value.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(jsonValue);
  return null;
}

const jsonAttributes = (list: JsonKeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, jsonValue(kv.value)]));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function fromJson(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          service: String(resource['service.name'] ?? ''),
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind ?? 0,
          attributes: jsonAttributes(s.attributes),
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          links: (s.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId, attributes: jsonAttributes(l.attributes) })),
          status: s.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}
