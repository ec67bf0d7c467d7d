/** The first bytes of each kind the network takes, padded to `size` bytes. */
export function fileOf(kind: 'png' | 'jpeg' | 'webp' | 'pdf' | 'ogg-opus' | 'ogg-vorbis' | 'mp4' | 'mp3' | 'text', size = 1024): Buffer {
  const heads: Record<string, Buffer> = {
    png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ')]),
    pdf: Buffer.from('%PDF-1.7\n'),
    'ogg-opus': Buffer.concat([Buffer.from('OggS'), Buffer.alloc(24), Buffer.from('OpusHead')]),
    'ogg-vorbis': Buffer.concat([Buffer.from('OggS'), Buffer.alloc(24), Buffer.from('\x01vorbis')]),
    mp4: Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom')]),
    mp3: Buffer.from('ID3\x03\x00'),
    text: Buffer.from('hello, plain text\n'),
  };
  const head = heads[kind];
  const fill = kind === 'text' ? 0x61 : 0x11;
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), fill)]);
}
