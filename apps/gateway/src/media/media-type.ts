/** The network's media kinds, their size limits (the spec's table) and published MIME types. */
export const MEDIA_KINDS = {
  audio: { limit: 16 * 1024 * 1024, types: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'] },
  document: {
    limit: 100 * 1024 * 1024,
    types: [
      'text/plain',
      'application/pdf',
      'application/msword',
      'application/vnd.ms-excel',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
  },
  image: { limit: 5 * 1024 * 1024, types: ['image/jpeg', 'image/png'] },
  sticker: { limit: 100 * 1024, types: ['image/webp'] },
  video: { limit: 16 * 1024 * 1024, types: ['video/3gpp', 'video/mp4'] },
} as const;

export type MediaKind = keyof typeof MEDIA_KINDS;

/** Bytes read before deciding what a file is. */
export const SNIFF_BYTES = 4096;
export const LARGEST_MEDIA = Math.max(...Object.values(MEDIA_KINDS).map((k) => k.limit));

const OLE = ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'];
const OOXML: Record<string, string> = {
  'word/': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'xl/': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'ppt/': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export type Sniffed = { mimeType: string; kind: MediaKind } | { problem: string };

/**
 * What a file is, read from its first bytes; `declared` (the part's Content-Type) only
 * chooses between types the bytes cannot tell apart (audio or video MP4, the three
 * legacy Office formats, plain text).
 */
export function sniffMedia(head: Buffer, declared: string): Sniffed {
  const mimeType = detect(head, declared.toLowerCase().split(';')[0].trim());
  if (typeof mimeType !== 'string') return mimeType;
  const kind = (Object.keys(MEDIA_KINDS) as MediaKind[]).find((k) => (MEDIA_KINDS[k].types as readonly string[]).includes(mimeType))!;
  return { mimeType, kind };
}

function detect(b: Buffer, declared: string): string | { problem: string } {
  if (b.length === 0) return { problem: 'the file is empty' };
  const ascii = (start: number, text: string) => b.subarray(start, start + text.length).toString('latin1') === text;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (ascii(0, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  if (ascii(0, '%PDF-')) return 'application/pdf';
  if (ascii(0, 'OggS')) {
    return b.includes(Buffer.from('OpusHead')) ? 'audio/ogg' : { problem: 'audio/ogg is only accepted with the opus codec' };
  }
  if (ascii(0, '#!AMR')) return 'audio/amr';
  if (ascii(0, 'ID3')) return 'audio/mpeg';
  if (b.length >= 2 && b[0] === 0xff && (b[1] & 0xf6) === 0xf0) return 'audio/aac';
  if (b.length >= 2 && b[0] === 0xff && (b[1] & 0xe0) === 0xe0) return 'audio/mpeg';
  if (ascii(4, 'ftyp')) {
    const brand = b.subarray(8, 12).toString('latin1');
    if (brand.startsWith('3g')) return 'video/3gpp';
    if (brand === 'M4A ' || declared === 'audio/mp4') return 'audio/mp4';
    return 'video/mp4';
  }
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) {
    return OLE.includes(declared) ? declared : 'application/msword';
  }
  if (ascii(0, 'PK\x03\x04')) {
    const text = b.toString('latin1');
    for (const [folder, type] of Object.entries(OOXML)) if (text.includes(folder)) return type;
    return Object.values(OOXML).includes(declared) ? declared : { problem: 'a ZIP archive is not a supported document type' };
  }
  if (isText(b)) {
    // Plain text is supported, but only declared as such: say so rather than call it unsupported.
    return declared === 'text/plain'
      ? 'text/plain'
      : { problem: `its bytes are plain text, which is accepted only with the part's Content-Type text/plain (this one says ${declared || 'nothing'})` };
  }
  return {
    problem:
      'its bytes are not a type the network supports (image/jpeg, image/png, image/webp, audio aac/amr/mpeg/mp4/ogg-opus, video mp4/3gpp, PDF, Office or plain text)',
  };
}

function isText(b: Buffer): boolean {
  if (b.includes(0)) return false;
  // A multi-byte character may be cut at the end of the sniffed bytes.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(b);
  return !text.slice(0, -1).includes('\ufffd');
}
