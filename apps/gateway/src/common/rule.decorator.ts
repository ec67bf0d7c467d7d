import { ValidateBy } from 'class-validator';

/**
 * One field rule for class-validator, worded as the network words a refusal: the global
 * ValidationPipe reports it as `field: <message>`, which the error renderer puts in the
 * network's `(#100) Invalid parameter` body. One message per field, so one rule per field:
 * `test` gets the field's value and the whole DTO (for rules between fields).
 */
export function Rule(name: string, test: (value: unknown, dto: Record<string, unknown>) => boolean, message: string | ((value: unknown) => string)): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value, args) => test(value, (args?.object ?? {}) as Record<string, unknown>),
      defaultMessage: (args) => (typeof message === 'string' ? message : message(args?.value)),
    },
  });
}
