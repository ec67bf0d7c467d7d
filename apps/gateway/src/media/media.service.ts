import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { FileTooLargeException, InvalidParameterException, ResourceNotFoundException } from '../errors/network-error.exception';
import { CHAT_PROVIDER, type ChatProvider, type PhoneContext } from '../network/chat-provider';
import { MEDIA_KINDS, SNIFF_BYTES, sniffMedia, type MediaKind } from './media-type';
import { MediaIdTakenException } from './media-id-taken.exception';
import { MediaRepository } from './media.repository';

/** A file as multer hands it to the storage engine. */
export interface IncomingFile {
  stream: Readable;
  mimetype: string;
  originalname: string;
}

/** What the upload produced, kept on multer's file object until the form is complete. */
export interface ReceivedMedia {
  id: string;
  kind: MediaKind;
  mimeType: string;
  size: number;
  sha256: Buffer;
}

@Injectable()
export class MediaService {
  constructor(
    private readonly media: MediaRepository,
    @Inject(CHAT_PROVIDER) private readonly provider: ChatProvider,
  ) {}

  /**
   * Streams one file to the provider: its first bytes decide its type (never its name),
   * its kind's size limit is enforced as it flows (413 past it), nothing is held whole.
   */
  async receive(phone: PhoneContext, file: IncomingFile): Promise<ReceivedMedia> {
    const chunks = file.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const head = await readHead(chunks);
    const sniffed = sniffMedia(head.bytes, file.mimetype);
    if ('problem' in sniffed) throw new InvalidParameterException('File', sniffed.problem);
    const declared = file.mimetype.toLowerCase().split(';')[0].trim();
    if (
      declared !== 'application/octet-stream' &&
      declared !== '' &&
      declared !== sniffed.mimeType &&
      !(declared === 'audio/opus' && sniffed.mimeType === 'audio/ogg')
    ) {
      throw new InvalidParameterException('File', `its bytes are ${sniffed.mimeType}, not the declared ${declared}`);
    }
    const limit = MEDIA_KINDS[sniffed.kind].limit;
    const hash = createHash('sha256');
    let size = 0;
    let tooLarge: FileTooLargeException | undefined;
    const gated = Readable.from(
      (async function* () {
        for (let next = head.rest; ; next = await chunks.next()) {
          if (next.done) return;
          size += next.value.length;
          if (size > limit) throw (tooLarge = new FileTooLargeException(sniffed.kind, limit));
          hash.update(next.value);
          yield next.value;
        }
      })(),
      { objectMode: false },
    );
    try {
      const id = await this.provider.uploadMedia(phone, {
        stream: gated,
        mimeType: sniffed.mimeType,
        kind: sniffed.kind,
        filename: file.originalname || 'file',
      });
      return { id, kind: sniffed.kind, mimeType: sniffed.mimeType, size, sha256: hash.digest() };
    } catch (error) {
      // The provider sees the size limit as a broken stream; the caller gets the 413.
      throw tooLarge ?? error;
    }
  }

  /**
   * The form is valid: the media is recorded (a refusal lets MediaDiscardInterceptor discard the stored file).
   * The network repeating an id of this account answers with it again; another account's id is a 409.
   */
  async complete(phone: PhoneContext, media: ReceivedMedia | undefined): Promise<{ id: string }> {
    if (!media) throw new InvalidParameterException('File', 'is required: send the file as the multipart form field File');
    const recorded = await this.media.record({ ...media, accountId: phone.accountId, phoneRef: phone.phoneRef });
    if (!recorded) throw new MediaIdTakenException(media.id);
    return { id: media.id };
  }

  /** The bytes of a media of the account, with its type; 404 for an id of another account or none. */
  async download(phone: PhoneContext, id: string): Promise<{ stream: Readable; mimeType: string }> {
    const mimeType = id.length <= 128 ? await this.media.mimeType(phone.accountId, id) : null;
    if (mimeType === null) throw new ResourceNotFoundException('media', id);
    return { stream: await this.provider.downloadMedia(phone, id), mimeType };
  }

  /** A request failed after its file was stored: the provider lets go of the file. */
  async discard(phone: PhoneContext, id: string): Promise<void> {
    await this.provider.discardMedia(phone, id);
  }
}

/** The first SNIFF_BYTES (or the whole file when shorter), and the iterator's next step after them. */
async function readHead(chunks: AsyncIterator<Buffer>): Promise<{ bytes: Buffer; rest: IteratorResult<Buffer> }> {
  const parts: Buffer[] = [];
  let length = 0;
  while (length < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    parts.push(next.value);
    length += next.value.length;
  }
  const bytes = Buffer.concat(parts);
  // What was read goes on as the first chunk; the iterator continues after it.
  return { bytes: bytes.subarray(0, SNIFF_BYTES), rest: bytes.length > 0 ? { done: false, value: bytes } : { done: true, value: undefined } };
}
