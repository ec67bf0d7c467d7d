import { loadConfig } from '@app/config';
import { RequestBodyConfig } from './request-body.config';

describe('RequestBodyConfig', () => {
  it('has in-flight caps that hold one largest body, and says which setting is too small', () => {
    const defaults = loadConfig(RequestBodyConfig, {});
    expect(defaults.BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL).toBeGreaterThanOrEqual(defaults.BODY_LIMIT_BYTES);
    expect(defaults.BODY_IN_FLIGHT_BYTES).toBeGreaterThanOrEqual(defaults.BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL);
    expect(() => loadConfig(RequestBodyConfig, { BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL: '1000' })).toThrow(
      'Setting BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL is invalid (must be at least BODY_LIMIT_BYTES (5242880)); got "1000".',
    );
    expect(() => loadConfig(RequestBodyConfig, { BODY_IN_FLIGHT_BYTES: '6000000' })).toThrow('must be at least BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL (8388608)');
  });
});
