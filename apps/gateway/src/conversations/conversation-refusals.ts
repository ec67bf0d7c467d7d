import { GatewayErrorCode, NetworkErrorCode, NetworkErrorException } from '../errors/network-error.exception';

/** The network's refusal of a free-form message outside the customer-service window, word for word. */
export const RE_ENGAGEMENT_DETAILS = 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

/** 400 (#131047): a non-template message to a contact whose service window is closed; nothing reached the provider. */
export class ServiceWindowClosedException extends NetworkErrorException {
  constructor() {
    super(GatewayErrorCode.WindowClosed, 400, {
      message: '(#131047) Re-engagement message',
      type: 'OAuthException',
      code: NetworkErrorCode.ReEngagement,
      details: RE_ENGAGEMENT_DETAILS,
    });
  }
}

/** 400 (#131050): the contact opted out; the details name how and when, and what may still be sent. */
export class ContactOptedOutException extends NetworkErrorException {
  constructor(waId: string, reason: string, what: string) {
    super(GatewayErrorCode.OptedOut, 400, {
      message: '(#131050) Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
      type: 'OAuthException',
      code: NetworkErrorCode.MarketingOptOut,
      details: `to: ${waId} opted out (${reason}); ${what} is not sent to an opted-out contact. Authentication and utility templates still are.`,
    });
  }
}
