import { checkPushItem } from './push-item.validator';
it('times 10,000 items', () => {
  const items = Array.from({ length: 10_000 }, (_, i) => ({ nm_envio: 'promo', nm_push: `device-${i}`, nm_titulo: 'Oi {{nome}}', nm_mensagem: 'Seu cupom: {{cupom}}', url_scheme: 'app://promo', campos: 'nome,cupom', valor: 'Ana,X10', nm_plataforma: i % 2 ? 'android' : 'iOS', ...(i % 10 === 0 ? { dt_envio: '2030-01-01', hr_envio: '09:00:00' } : {}), ...(i % 7 === 0 ? { nm_push: 5 } : {}) }));
  for (let w = 0; w < 3; w++) items.forEach((it) => checkPushItem(it, 'UTC'));
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) { const t = performance.now(); items.forEach((it) => checkPushItem(it, 'UTC')); runs.push(performance.now() - t); }
  runs.sort((a, b) => a - b);
  console.log('median ms per 10k', runs[3].toFixed(1));
});
