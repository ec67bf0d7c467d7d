import { Catch, type ArgumentsHost } from '@nestjs/common';
import { AppExceptionFilter, ValidationFailedException } from '@app/errors';
import { InvalidParameterException } from '../errors/network-error.exception';
import { refusedPart } from './rule.decorator';

/** class-validator's words for a field no DTO declares (forbidNonWhitelisted). */
const UNKNOWN_FIELD = /^property .* should not exist$/;

/**
 * The global ValidationPipe refuses a DTO with the shared 422; the network answers 400
 * `(#100) Invalid parameter` naming one field, the first refused (in the DTO's order), with
 * its rule. A filter of the controllers that use it, answering through the app's own filter:
 * it runs only when a request fails, so a request that passes pays nothing for it (an
 * interceptor would wrap every request of the controller in an Observable).
 */
@Catch(ValidationFailedException)
export class InvalidInputFilter extends AppExceptionFilter {
  override catch(error: ValidationFailedException, host: ArgumentsHost): void {
    super.catch(invalidParameter(error), host);
  }
}

/** The network's refusal of the first refused field; the shared 422 itself when it names none. */
export function invalidParameter(error: ValidationFailedException): ValidationFailedException | InvalidParameterException {
  const [first] = Object.entries((error.extras as { errors?: Record<string, string[]> }).errors ?? {});
  if (!first) return error;
  const [field, [refusal = '']] = first;
  if (UNKNOWN_FIELD.test(refusal)) return new InvalidParameterException(field, 'is not a known parameter');
  const part = refusedPart(refusal);
  return part ? new InvalidParameterException(`${field}${part[0]}`, part[1]) : new InvalidParameterException(field, refusal);
}
