import type { PhoneContext, SendMessage } from '../network/chat-provider';
import { NetworkErrorCode, NetworkErrorException } from '../errors/network-error.exception';
import { ConversationRules } from './conversation-rules.service';
import { ConversationsConfig } from './conversations.config';
import type { ConversationsRepository, SendOptOut } from './conversations.repository';

const PHONE: PhoneContext = { accountId: 'account', phoneRef: 'phone', phone: '15550100001', phoneId: '1', wabaId: null, accessToken: null };
const OPTED_OUT: SendOptOut = { source: 'keyword', keyword: 'STOP', opted_out_at: '2026-12-07T05:00:00.000000Z' };

/** The repository's send-time reads, counted: each send must make exactly one. */
class FakeConversations implements Pick<ConversationsRepository, 'sendState' | 'sendOptOut' | 'templateCategory'> {
  optOut: SendOptOut | null = null;
  windowOpen = false;
  reads: string[] = [];

  async sendState() {
    this.reads.push('state');
    return { window_open: this.windowOpen, opt_out: this.optOut };
  }

  async sendOptOut() {
    this.reads.push('opt-out');
    return this.optOut;
  }

  async templateCategory(_: string, name: string) {
    return name === 'code' ? 'AUTHENTICATION' : name === 'promo' ? 'MARKETING' : null;
  }
}

const text: SendMessage = { kind: 'send', to: '+1 555 0102030', type: 'text', payload: {}, mediaIds: [] };
const template = (name: string): SendMessage => ({ ...text, type: 'template', template: { name, language: 'en', bodyParameters: 0 } });

function rules(window: 'enforce' | 'off'): [ConversationRules, FakeConversations] {
  const config = Object.assign(new ConversationsConfig(), { GATEWAY_SERVICE_WINDOW: window });
  const conversations = new FakeConversations();
  return [new ConversationRules(config, conversations as unknown as ConversationsRepository), conversations];
}

/** The network code a check refuses with, or null when the message may go. */
async function refusal(check: Promise<void>): Promise<number | null> {
  try {
    await check;
    return null;
  } catch (error) {
    if (error instanceof NetworkErrorException) return error.network.code;
    throw error;
  }
}

describe('ConversationRules', () => {
  it('reads the window and the opt-out in one statement for a free-form message with the window enforced', async () => {
    const [check, db] = rules('enforce');
    expect(await refusal(check.check(PHONE, text))).toBe(NetworkErrorCode.ReEngagement);
    db.windowOpen = true;
    expect(await refusal(check.check(PHONE, text))).toBeNull();
    db.optOut = OPTED_OUT;
    expect(await refusal(check.check(PHONE, text))).toBe(NetworkErrorCode.MarketingOptOut);
    expect(db.reads).toEqual(['state', 'state', 'state']);
  });

  it('reads the opt-out alone for a template, whose window does not matter', async () => {
    const [check, db] = rules('enforce');
    expect(await refusal(check.check(PHONE, template('promo')))).toBeNull();
    db.optOut = OPTED_OUT;
    expect(await refusal(check.check(PHONE, template('promo')))).toBe(NetworkErrorCode.MarketingOptOut);
    expect(await refusal(check.check(PHONE, template('unknown')))).toBe(NetworkErrorCode.MarketingOptOut);
    expect(await refusal(check.check(PHONE, template('code')))).toBeNull();
    expect(db.reads).toEqual(['opt-out', 'opt-out', 'opt-out', 'opt-out']);
  });

  it('with the window off, reads the opt-out alone and still refuses an opted-out contact', async () => {
    const [check, db] = rules('off');
    expect(await refusal(check.check(PHONE, text))).toBeNull();
    db.optOut = OPTED_OUT;
    expect(await refusal(check.check(PHONE, text))).toBe(NetworkErrorCode.MarketingOptOut);
    expect(db.reads).toEqual(['opt-out', 'opt-out']);
  });
});
