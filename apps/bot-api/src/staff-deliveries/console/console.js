// The staff delivery console: plain DOM and fetch against the staff routes, nothing loaded from elsewhere.
'use strict';

const API = '/api/v1/bots/admin/deliveries';
const TOKEN_KEY = 'staff-console-token';
const $ = (id) => document.getElementById(id);
let nextCursor = null;
let openUpdateId = null;
let jobId = null;
let polling = null;

function headers() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  // Behind the SSO proxy there is no token here: the proxy adds the Authorization header itself.
  const result = { 'Content-Type': 'application/json' };
  if (token) result.Authorization = `Bearer ${token}`;
  return result;
}

async function call(method, path, body) {
  const res = await fetch(path, { method, headers: headers(), body: body ? JSON.stringify(body) : undefined });
  const json = await res.json().catch(() => ({ success: false, message: `HTTP ${res.status}` }));
  if (!json.success) {
    const message = `${json.code || res.status}: ${json.message || 'request failed'}`;
    showError(message);
    throw new Error(message);
  }
  $('error').hidden = true;
  return json.data;
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = false;
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text === null || text === undefined ? '' : String(text);
  row.appendChild(td);
  return td;
}

function button(label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

const utc = (value) => (value ? `${value.length === 16 ? `${value}:00` : value}Z` : undefined);

function filter() {
  const form = new FormData($('filter'));
  const value = (name) => (form.get(name) || '').toString().trim() || undefined;
  return {
    status: value('status'),
    bot_id: value('bot_id'),
    since: utc(value('since')),
    until: utc(value('until')),
    error: value('error'),
  };
}

const query = (params) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null)).toString();

async function loadSummary() {
  const f = filter();
  const data = await call('GET', `${API}/summary?${query({ since: f.since, until: f.until })}`);
  $('summary-status').replaceChildren(
    ...Object.entries(data.by_status).map(([status, count]) => span(`${status}: ${count}`)),
  );
  const errors = Object.entries(data.dead_letters_by_error);
  $('summary-errors').replaceChildren(
    span('Dead letters by error:'),
    ...(errors.length ? errors.map(([name, count]) => span(`${name}: ${count}`)) : [span('none')]),
  );
  $('summary-bots').replaceChildren(
    ...data.bots.map((bot) => {
      const row = document.createElement('tr');
      const name = cell(row, '');
      name.appendChild(button(`${bot.bot_name} (${bot.bot_id})`, () => filterBot(bot.bot_id)));
      cell(row, bot.owner_id);
      cell(row, bot.dead_letter);
      cell(row, bot.open);
      cell(row, bot.succeeded);
      return row;
    }),
  );
}

function span(text) {
  const s = document.createElement('span');
  s.textContent = text;
  return s;
}

function filterBot(botId) {
  $('filter').elements.bot_id.value = botId;
  void loadDeliveries(false);
}

async function loadDeliveries(more) {
  const data = await call(
    'GET',
    `${API}?${query({ ...filter(), cursor: more ? nextCursor : undefined, pageSize: 50 })}`,
  );
  const rows = data.items.map((d) => {
    const row = document.createElement('tr');
    cell(row, d.update_id).className = 'update-id';
    cell(row, `${d.bot_name} (${d.bot_id})`);
    cell(row, d.status);
    cell(row, d.trigger);
    cell(row, [d.error_class, d.last_error].filter(Boolean).join(' · '));
    cell(row, d.dead_letter_at || d.updated_at);
    cell(row, '').appendChild(button('Open', () => openDelivery(d.update_id)));
    return row;
  });
  if (more) $('deliveries').append(...rows);
  else $('deliveries').replaceChildren(...rows);
  nextCursor = data.next_cursor;
  $('more').hidden = !nextCursor;
}

async function openDelivery(updateId) {
  const d = await call('GET', `${API}/updates/${encodeURIComponent(updateId)}`);
  openUpdateId = updateId;
  const fields = [
    'update_id',
    'bot_id',
    'owner_id',
    'status',
    'series',
    'trigger',
    'attempts',
    'error_class',
    'last_error',
    'dead_letter_at',
  ];
  $('detail-fields').replaceChildren(
    ...fields.flatMap((name) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = d[name] === null ? '—' : String(d[name]);
      return [dt, dd];
    }),
  );
  $('attempts').replaceChildren(
    ...d.attempt_log.map((a) => {
      const row = document.createElement('tr');
      [a.series, a.trigger, a.attempt, a.status_code, `${a.latency_ms} ms`, a.error, a.attempted_at].forEach((v) =>
        cell(row, v),
      );
      return row;
    }),
  );
  $('payload').textContent = JSON.stringify(d.update, null, 2);
  $('detail').hidden = false;
  $('detail-title').focus();
}

async function redeliverOne() {
  if (!openUpdateId) return;
  await call('POST', `${API}/updates/${encodeURIComponent(openUpdateId)}/redeliver`);
  await Promise.all([openDelivery(openUpdateId), loadSummary(), loadAudit()]);
}

/** Without a bot in the filter the redrive is every bot's, and says so. */
function redriveBody() {
  const f = filter();
  return { bot_id: f.bot_id, all_bots: f.bot_id ? undefined : true, since: f.since, until: f.until, error: f.error };
}

async function dryRun() {
  const data = await call('POST', `${API}/redrives/dry-run`, redriveBody());
  $('dry-result').textContent =
    `Dry run: ${data.would_redeliver} dead letter(s) of ${data.per_bot.length} bot(s) would be redelivered.`;
  $('run').disabled = data.would_redeliver === 0;
  void loadAudit();
}

async function startRedrive() {
  const body = redriveBody();
  if (body.all_bots) {
    // Counted now, not at the last dry run: the platform-wide count the operator confirms is current.
    const dry = await call('POST', `${API}/redrives/dry-run`, body);
    const question = `Redeliver ${dry.would_redeliver} dead letter(s) of ${dry.per_bot.length} bot(s), across every bot?`;
    if (!window.confirm(question)) return;
  }
  const job = await call('POST', `${API}/redrives`, {
    ...body,
    rate_per_bot: Number($('rate').value) || undefined,
  });
  $('run').disabled = true;
  showJob(job);
  void loadAudit();
}

function showJob(job) {
  jobId = job.id;
  const handled = job.done + job.failed;
  const percent = job.total === 0 ? 100 : Math.floor((handled / job.total) * 100);
  $('job').hidden = false;
  $('job-progress').value = percent;
  $('job-text').textContent =
    `Job ${job.id}: ${job.status}, ${percent} % (${job.done} redelivered, ${job.failed} failed, ${job.pending} left of ${job.total})`;
  $('cancel').disabled = job.status !== 'running';
  clearTimeout(polling);
  if (job.status === 'running') {
    polling = setTimeout(async () => showJob(await call('GET', `${API}/redrives/${job.id}`)), 1000);
  } else {
    void Promise.all([loadSummary(), loadDeliveries(false), loadAudit()]);
  }
}

async function cancelRedrive() {
  if (jobId) showJob(await call('POST', `${API}/redrives/${jobId}/cancel`));
}

async function loadAudit() {
  const data = await call('GET', `${API}/audit?pageSize=50`);
  $('audit').replaceChildren(
    ...data.items.map((entry) => {
      const row = document.createElement('tr');
      [
        entry.created_at,
        entry.actor_id,
        entry.action,
        entry.target,
        JSON.stringify(entry.filter),
        JSON.stringify(entry.counts),
      ].forEach((v) => cell(row, v));
      return row;
    }),
  );
}

async function signIn(event) {
  event.preventDefault();
  const token = $('token').value.trim();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  $('token').value = '';
  $('who').textContent = '';
  await refreshAll();
}

/** The account every action is taken (and audited) as: the token's, or the SSO proxy's. */
async function showWho() {
  const who = await call('GET', `${API}/session`);
  $('who').textContent = `Signed in as ${who.name} (${who.id})`;
}

async function refreshAll() {
  await Promise.all([showWho(), loadSummary(), loadDeliveries(false), loadAudit()]);
}

const safely = (fn) => (event) => fn(event).catch(() => undefined);

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in').addEventListener('submit', safely(signIn));
  $('filter').addEventListener(
    'submit',
    safely(async (event) => {
      event.preventDefault();
      $('run').disabled = true;
      await Promise.all([loadSummary(), loadDeliveries(false)]);
    }),
  );
  $('more').addEventListener(
    'click',
    safely(() => loadDeliveries(true)),
  );
  $('redeliver-one').addEventListener('click', safely(redeliverOne));
  $('dry-run').addEventListener('click', safely(dryRun));
  $('run').addEventListener('click', safely(startRedrive));
  $('cancel').addEventListener('click', safely(cancelRedrive));
  $('audit-refresh').addEventListener('click', safely(loadAudit));
  $('detail-title').tabIndex = -1;
  if (sessionStorage.getItem(TOKEN_KEY)) void refreshAll().catch(() => undefined);
});
