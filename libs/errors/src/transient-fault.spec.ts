import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { toAppException } from './app-exception.filter';
import { CommonErrorCode } from './common.exception';
import { isTransientFault } from './transient-fault';

const pgError = (code: string, message = 'boom') => Object.assign(new DatabaseError(message, 0, 'error'), { code });
const socketError = (code: string, syscall?: string) => Object.assign(new Error(`${syscall ?? 'x'} ${code}`), syscall ? { code, syscall } : { code });

describe('transient faults', () => {
  it.each([
    ['a terminated backend (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['a crashed server (57P02)', pgError('57P02')],
    ['a server starting or in recovery (57P03)', pgError('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', pgError('08006')],
    ['a connection that does not exist (08003)', pgError('08003')],
    ['a standby after a failover (25006)', pgError('25006', 'cannot execute INSERT in a read-only transaction')],
    ['a deadlock (40P01)', pgError('40P01')],
    ['a serialization failure (40001)', pgError('40001')],
    ['a reset backend socket', socketError('ECONNRESET', 'read')],
    ['a refused connection', socketError('ECONNREFUSED', 'connect')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a statement timeout (57014)', pgError('57014', 'canceling statement due to statement timeout')],
    ['an idle-in-transaction timeout (25P03)', pgError('25P03', 'terminating connection due to idle-in-transaction timeout')],
    ['a silent server (query_timeout)', new Error('Query read timeout')],
    ['a query on a broken client', new Error('Client has encountered a connection error and is not queryable')],
    ['a TypeORM QueryFailedError over 57P01', new QueryFailedError('SELECT 1', [], pgError('57P01'))],
    ['a wrapped cause', new Error('outer', { cause: pgError('08000') })],
  ])('answers 503 with Retry-After to %s', (_what, error) => {
    expect(isTransientFault(error)).toBe(true);
    const mapped = toAppException(error);
    expect(mapped.status).toBe(503);
    expect(mapped.code).toBe(CommonErrorCode.Unavailable);
    expect(mapped.headers).toEqual({ 'Retry-After': '5' });
    expect(mapped.body()).toEqual({ message: expect.any(String), retry_after: 5 });
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['a COPY the client failed (57014)', pgError('57014', 'COPY from stdin failed: bad row')],
    ['a client that reset its own request (no syscall)', socketError('ECONNRESET')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a message that only mentions a connection', new Error('the Connection terminated field is required')],
  ])('keeps %s a 500', (_what, error) => {
    expect(isTransientFault(error)).toBe(false);
    expect(toAppException(error).status).toBe(500);
  });
});
