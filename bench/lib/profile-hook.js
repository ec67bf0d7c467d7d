'use strict';
// Preloaded into a server child (`node -r bench/lib/profile-hook.js ...`) when the bench
// profiles it. The parent sends {profile:'start'} after warm-up and {profile:'stop', file}
// when the measured run ends, so the .cpuprofile covers only the measured window
// (unlike --cpu-prof, which also records start-up and needs a clean exit).

const fs = require('node:fs');
const inspector = require('node:inspector');

const session = new inspector.Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));

process.on('message', async (msg) => {
  try {
    if (msg && msg.profile === 'start') {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: Number(msg.intervalUs) || 500 });
      await post('Profiler.start');
      process.send({ profile: 'started' });
    } else if (msg && msg.profile === 'stop') {
      const { profile } = await post('Profiler.stop');
      fs.writeFileSync(msg.file, JSON.stringify(profile));
      process.send({ profile: 'stopped', file: msg.file });
    }
  } catch (error) {
    process.send({ profile: 'error', message: String(error && error.message) });
  }
});
