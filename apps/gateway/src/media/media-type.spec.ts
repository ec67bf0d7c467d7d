import fc from 'fast-check';
import { sniffMedia } from './media-type';

const ascii = (s: string) => Buffer.from(s, 'latin1');

describe('sniffMedia', () => {
  it.each([
    [Buffer.from([0xff, 0xd8, 0xff, 0xdb]), '', 'image/jpeg', 'image'],
    [ascii('\x89PNG\r\n\x1a\n....'), 'image/jpeg', 'image/png', 'image'],
    [ascii('RIFF\0\0\0\0WEBPVP8 '), '', 'image/webp', 'sticker'],
    [ascii('%PDF-1.4'), '', 'application/pdf', 'document'],
    [Buffer.concat([ascii('OggS'), Buffer.alloc(24), ascii('OpusHead')]), '', 'audio/ogg', 'audio'],
    [ascii('#!AMR\n'), '', 'audio/amr', 'audio'],
    [ascii('ID3\x04'), '', 'audio/mpeg', 'audio'],
    [Buffer.from([0xff, 0xf1, 0x50]), '', 'audio/aac', 'audio'],
    [ascii('\0\0\0\x18ftyp3gp4'), '', 'video/3gpp', 'video'],
    [ascii('\0\0\0\x18ftypM4A '), '', 'audio/mp4', 'audio'],
    [ascii('\0\0\0\x18ftypisom'), 'audio/mp4', 'audio/mp4', 'audio'],
    [ascii('\0\0\0\x18ftypisom'), '', 'video/mp4', 'video'],
    [Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 'application/vnd.ms-excel', 'application/vnd.ms-excel', 'document'],
    [ascii('PK\x03\x04....word/document.xml'), '', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'],
    [ascii('plain words\n'), 'text/plain; charset=utf-8', 'text/plain', 'document'],
  ])('reads %j (declared %p) as %s', (bytes, declared, mimeType, kind) => {
    expect(sniffMedia(bytes, declared)).toEqual({ mimeType, kind });
  });

  it('refuses ogg without opus, unknown bytes and text not declared as text', () => {
    expect(sniffMedia(Buffer.concat([ascii('OggS'), Buffer.alloc(24), ascii('\x01vorbis')]), 'audio/ogg')).toEqual({
      problem: 'audio/ogg is only accepted with the opus codec',
    });
    expect(sniffMedia(ascii('MZ\x90\0'), 'image/png')).toHaveProperty('problem');
    expect(sniffMedia(ascii('plain words'), 'image/png')).toEqual({
      problem: "its bytes are plain text, which is accepted only with the part's Content-Type text/plain (this one says image/png)",
    });
    expect(sniffMedia(Buffer.alloc(0), 'text/plain')).toEqual({ problem: 'the file is empty' });
  });

  it('never throws on any bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.string(), (bytes, declared) => void sniffMedia(Buffer.from(bytes), declared)));
  });
});
