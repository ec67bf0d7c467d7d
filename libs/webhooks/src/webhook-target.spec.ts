import { TargetPolicy } from './webhook-target';

describe('TargetPolicy', () => {
  const closed = new TargetPolicy('');

  it.each([
    'http://127.0.0.1/hook',
    'https://127.0.0.1/hook',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[fd00:ec2::254]/',
    'https://[fe80::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://224.0.0.1/',
    'https://localhost/',
    'https://192.0.2.10/',
    // loopback names however spelled: the root's trailing dot, capitals, subdomains (RFC 6761)
    'https://localhost./',
    'https://LOCALHOST./',
    'https://api.localhost/',
    'https://a.b.localhost./',
    'https://127.0.0.1./',
    // IPv6 forms that embed a non-public IPv4 address
    'https://[::7f00:1]/',
    'https://[::127.0.0.1]/',
    'https://[::a9fe:a9fe]/',
    'https://[::10.0.0.1]/',
    'https://[::169.254.169.254]/',
    'https://[::]/',
    'https://[::ffff:0:7f00:1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[64:ff9b::10.0.0.1]/',
    'https://[64:ff9b:1::5db8:d822]/',
    'https://[2002:7f00:1::]/',
    'https://[2002:a9fe:a9fe::1]/',
    'https://[2002:c0a8:101::]/',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'https://[2001:0:a00:1:8000:63bf:a201:27dd]/',
  ])('refuses %s', async (url) => {
    expect(await closed.refusal(url)).toEqual(expect.any(String));
  });

  it.each([
    'ftp://93.184.216.34/',
    'not a url',
    'https://user:pw@93.184.216.34/',
    'http://93.184.216.34/',
    'https:///x',
    'https:///93.184.216.34/',
    'https:93.184.216.34/',
    'https:/93.184.216.34/',
    'https:\\\\93.184.216.34/',
    'https://',
    '//93.184.216.34/',
  ])('refuses %s (scheme, form or credentials)', async (url) => {
    expect(await closed.refusal(url)).toEqual(expect.any(String));
  });

  it('accepts public https addresses, and names that do not resolve yet (checked again at delivery)', async () => {
    expect(await closed.refusal('https://93.184.216.34/hook')).toBeNull();
    expect(await closed.refusal('https://[2606:2800:220:1:248:1893:25c8:1946]/hook')).toBeNull();
    expect(await closed.refusal('https://no-such-host.invalid/hook')).toBeNull();
  });

  it.each(['::5db8:d822', '64:ff9b::5db8:d822', '64:ff9b::93.184.216.34', '2002:5db8:d822::1', '2001:0:5db8:d822:8000:63bf:a247:27dd'])(
    'accepts %s, whose embedded IPv4 addresses are public',
    async (address) => {
      expect(await closed.refusal(`https://[${address}]/hook`)).toBeNull();
    },
  );

  it('names the setting that would allow a non-public target, and http where the service allows it', async () => {
    expect(await closed.refusal('https://127.0.0.1/hook')).toBe(
      'The url resolves to 127.0.0.1, which is not a public address; list the host or its address in the setting WEBHOOK_ALLOWED_TARGETS to allow it (e.g. 127.0.0.1 for a local receiver).',
    );
    expect(await closed.refusal('https://localhost/hook')).toMatch(/^The url names localhost, this machine, not a public address; .*WEBHOOK_ALLOWED_TARGETS/);
    expect(await new TargetPolicy('', true).refusal('http://127.0.0.1:8080/hook')).toBe(
      'The url must use https (http only for a host listed in WEBHOOK_ALLOWED_TARGETS).',
    );
    expect(await closed.refusal('http://127.0.0.1:8080/hook')).toBe('The url must use https.');
  });

  it('keeps allow-listed targets on https unless the service allows http for them', async () => {
    const https = new TargetPolicy('127.0.0.0/8, receiver.internal');
    expect(await https.refusal('https://127.0.0.1:8443/hook')).toBeNull();
    expect(await https.refusal('https://receiver.internal/hook')).toBeNull();
    expect(await https.refusal('http://127.0.0.1:8080/hook')).toEqual('The url must use https.');
    expect(await https.refusal('http://receiver.internal/hook')).toEqual('The url must use https.');
  });

  it('lets the allow list open hosts and CIDRs, also for plain http where the service allows it', async () => {
    const open = new TargetPolicy('127.0.0.0/8, receiver.internal, ::1', true);
    expect(await open.refusal('http://127.0.0.1:8080/hook')).toBeNull();
    expect(await open.refusal('http://[::1]:8080/hook')).toBeNull();
    expect(await open.refusal('http://receiver.internal/hook')).toBeNull();
    expect(await open.refusal('http://10.0.0.1/hook')).toEqual(expect.any(String));
    expect(open.isReachable('x', '127.0.0.5')).toBe(true);
    expect(open.isReachable('x', '::ffff:127.0.0.5')).toBe(true);
    expect(open.isReachable('x', '10.0.0.1')).toBe(false);
  });

  it('refuses private answers at connect time', (done) => {
    closed.lookup('localhost', {}, (error) => {
      expect(error).toMatchObject({ code: 'EBLOCKEDTARGET' });
      done();
    });
  });

  it('validates allow-list syntax', () => {
    expect(TargetPolicy.isValidAllowList('10.0.0.0/8,example.com')).toBe(true);
    expect(TargetPolicy.isValidAllowList('10.0.0.0/99')).toBe(false);
  });
});
