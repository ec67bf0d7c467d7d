import { GatewayErrorCode, NetworkErrorCode, NetworkErrorException } from '../errors/network-error.exception';

/** 409: the network answered an upload with a media id the gateway holds for another account. */
export class MediaIdTakenException extends NetworkErrorException {
  constructor(id: string) {
    super(GatewayErrorCode.Conflict, 409, {
      message: '(#131053) Media upload error',
      type: 'OAuthException',
      code: NetworkErrorCode.MediaUploadError,
      details: `File: the network answered with media id ${id}, which belongs to another account; nothing was recorded, upload the file again.`,
    });
  }
}
