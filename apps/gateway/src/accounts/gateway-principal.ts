import type { Principal } from '@app/auth';
import type { PhoneContext } from '../network/chat-provider';

/** Who calls: the API key (credentialId), its account (ownerId) and the business phone it belongs to. */
export interface GatewayPrincipal extends Principal {
  phone: PhoneContext;
}
