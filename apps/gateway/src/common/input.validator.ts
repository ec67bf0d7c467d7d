import { InvalidParameterException } from '../errors/network-error.exception';

/**
 * A small typed reader for request bodies: each call checks one field and throws the
 * network's invalid-parameter error naming the field's path and the rule it breaks.
 * The message and template bodies are unions keyed by `type`, which a reader expresses
 * more directly than decorated classes.
 */
export class Input {
  constructor(
    readonly value: unknown,
    readonly path: string,
  ) {}

  static body(value: unknown): Input {
    return new Input(value, 'body');
  }

  fail(rule: string): never {
    throw new InvalidParameterException(this.path, rule);
  }

  get present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  /** A child field of this object. */
  at(key: string | number): Input {
    const parent = this.value as Record<string, unknown>;
    const value = parent !== null && typeof parent === 'object' && Object.prototype.hasOwnProperty.call(parent, key) ? parent[key] : undefined;
    return new Input(value, this.path === 'body' ? String(key) : `${this.path}.${key}`);
  }

  /** A JSON object whose keys are only `allowed` (unknown fields are refused by name). */
  object(allowed: readonly string[]): this {
    if (this.value === null || typeof this.value !== 'object' || Array.isArray(this.value)) this.fail('must be an object');
    for (const key of Object.keys(this.value)) {
      if (!allowed.includes(key)) this.at(key).fail('is not a known parameter');
    }
    return this;
  }

  string(rules: { min?: number; max?: number; pattern?: RegExp; rule?: string } = {}): string {
    const { min = 1, max, pattern, rule } = rules;
    if (typeof this.value !== 'string') this.fail(this.value === undefined ? 'is required' : 'must be a string');
    const length = [...this.value].length;
    if (length < min) this.fail(min === 1 ? 'must not be empty' : `must be at least ${min} characters long`);
    if (max !== undefined && length > max) this.fail(`must be at most ${max} characters long`);
    if (pattern && !pattern.test(this.value)) this.fail(rule ?? `must match ${pattern}`);
    return this.value;
  }

  optionalString(rules: Parameters<Input['string']>[0] = {}): string | undefined {
    return this.present ? this.string(rules) : this.absent();
  }

  oneOf<T extends string>(values: readonly T[], options: { ignoreCase?: boolean } = {}): T {
    const raw = typeof this.value === 'string' && options.ignoreCase ? this.value.toLowerCase() : this.value;
    const found = values.find((v) => (options.ignoreCase ? v.toLowerCase() : v) === raw);
    if (found === undefined) this.fail(this.value === undefined ? `is required: one of ${values.join(', ')}` : `must be one of ${values.join(', ')}`);
    return found;
  }

  optionalOneOf<T extends string>(values: readonly T[], options: { ignoreCase?: boolean } = {}): T | undefined {
    return this.present ? this.oneOf(values, options) : this.absent();
  }

  boolean(): boolean {
    if (typeof this.value !== 'boolean') this.fail(this.value === undefined ? 'is required' : 'must be true or false');
    return this.value;
  }

  optionalBoolean(): boolean | undefined {
    return this.present ? this.boolean() : this.absent();
  }

  integer(min: number, max: number): number {
    if (typeof this.value !== 'number' || !Number.isSafeInteger(this.value)) this.fail(this.value === undefined ? 'is required' : 'must be an integer');
    if (this.value < min || this.value > max) this.fail(`must be between ${min} and ${max}`);
    return this.value;
  }

  number(min: number, max: number): number {
    if (typeof this.value !== 'number' || !Number.isFinite(this.value)) this.fail(this.value === undefined ? 'is required' : 'must be a number');
    if (this.value < min || this.value > max) this.fail(`must be between ${min} and ${max}`);
    return this.value;
  }

  /** Each item of an array, as an Input; `min`/`max` bound its length. */
  array(min: number, max: number): Input[] {
    if (!Array.isArray(this.value)) this.fail(this.value === undefined ? 'is required' : 'must be an array');
    if (this.value.length < min) this.fail(min === 1 ? 'must not be empty' : `must hold at least ${min} items`);
    if (this.value.length > max) this.fail(`must hold at most ${max} items`);
    return this.value.map((_, i) => this.at(i));
  }

  optionalArray(min: number, max: number): Input[] {
    return this.present ? this.array(min, max) : [];
  }

  /** Must not be there at all (a field another choice excludes). */
  absent(rule = 'is not allowed here'): undefined {
    if (this.value !== undefined) this.fail(rule);
    return undefined;
  }
}

export { HTTP_URL, PHONE_NUMBER } from './rule.decorator';
