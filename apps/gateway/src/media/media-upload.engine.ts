import type { Request } from 'express';
import type { GatewayPrincipal } from '../accounts/gateway-principal';
import { MediaService, type IncomingFile, type ReceivedMedia } from './media.service';

/** multer's storage engine contract (multer ships no types of its own). */
interface StorageEngine {
  _handleFile(req: Request, file: IncomingFile, callback: (error?: unknown, info?: Partial<ReceivedMedia>) => void): void;
  _removeFile(req: Request, file: Partial<ReceivedMedia>, callback: (error: Error | null) => void): void;
}

/** multer's storage engine for `POST api/Medias`: each file streams through MediaService as it arrives. */
export class MediaUploadEngine implements StorageEngine {
  constructor(private readonly media: MediaService) {}

  _handleFile(req: Request, file: IncomingFile, callback: (error?: unknown, info?: Partial<ReceivedMedia>) => void): void {
    const phone = (req.principal as GatewayPrincipal).phone;
    this.media.receive(phone, file).then(
      (media) => callback(null, media),
      (error) => {
        // Drain the rest of the part so multer can finish the form and answer.
        file.stream.resume();
        callback(error);
      },
    );
  }

  _removeFile(req: Request, file: Partial<ReceivedMedia>, callback: (error: Error | null) => void): void {
    const phone = (req.principal as GatewayPrincipal).phone;
    if (!file.id) return callback(null);
    this.media.discard(phone, file.id).then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }
}
