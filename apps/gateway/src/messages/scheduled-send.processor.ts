import { Injectable, Logger } from '@nestjs/common';
import type { Job, LaneItem, LaneJob, LaneProcessor } from '@app/queue';
import { ApiKeyStore } from '../accounts/api-key.store';
import { NetworkErrorCode, NetworkErrorException, ThroughputException, type NetworkError } from '../errors/network-error.exception';
import { MessagesService } from './messages.service';
import { ScheduledMessagesRepository, type ClaimedSend, type SendOutcome } from './scheduled-messages.repository';

/** When a send found the phone's throughput tier full, it is due again this much later (plus up to a quarter of it, spread). */
const THROUGHPUT_RETRY_MS = 1000;

/**
 * The one processor of the scheduled-send lane: claims the job's messages in PostgreSQL (each once, whatever runs the
 * job), hands each to the network through MessagesService's send path, as an immediate send, and records the outcomes.
 * A refusal (the network's, or the gateway's own checks on that path) fails the message with its error; a full
 * throughput tier sends it a second later.
 */
@Injectable()
export class ScheduledSendProcessor implements LaneProcessor<LaneItem> {
  private readonly logger = new Logger(ScheduledSendProcessor.name);

  constructor(
    private readonly scheduled: ScheduledMessagesRepository,
    private readonly messages: MessagesService,
    private readonly keys: ApiKeyStore,
  ) {}

  async process(job: Job<LaneJob<LaneItem>>): Promise<void> {
    const claimed = await this.scheduled.claim(job.data.items);
    if (claimed.length === 0) return;
    await this.scheduled.record(await Promise.all(claimed.map((row) => this.send(row))));
  }

  private async send(row: ClaimedSend): Promise<SendOutcome> {
    try {
      const answer = await this.messages.sendScheduled(this.keys.phoneContext(row), row.request);
      return { id: row.id, state: 'sent', messageId: answer.messages[0].id };
    } catch (error) {
      if (error instanceof ThroughputException) return { id: row.id, state: 'scheduled', retryInMs: Math.round(THROUGHPUT_RETRY_MS * (1 + Math.random() / 4)) };
      if (error instanceof NetworkErrorException) return { id: row.id, state: 'failed', error: statusError(error.network) };
      this.logger.warn({ err: error, id: row.id }, 'scheduled send failed');
      return {
        id: row.id,
        state: 'failed',
        error: statusError({
          message: 'Send failed',
          type: 'OAuthException',
          code: NetworkErrorCode.Unknown,
          details: 'The gateway could not hand the message to the network.',
        }),
      };
    }
  }
}

/** A refusal as a `failed` status's error: the network's error object shape. */
function statusError(error: NetworkError): Record<string, unknown> {
  return { code: error.code, title: error.message, message: error.message, error_data: { details: error.details } };
}
