#!/usr/bin/env node
// kandev-test-agent: a fault-injecting ACP agent (JSON-RPC 2.0, one JSON object per line over
// stdin/stdout). Self-contained on purpose: no dependencies, one file, so it can be packed for npm.
//
// Mode: --mode=<mode> or KANDEV_TEST_AGENT_MODE (the flag wins). Modes:
//   normal                  a well-behaved agent
//   exit-before-initialize  exits (code 3) as soon as it starts, before answering anything
//   hang-initialize         never answers initialize
//   hold-initialize         answers initialize once the --mode-file no longer says hold-initialize
//                           (without a mode file: never)
//   hold-load               answers session/load once the --mode-file no longer says hold-load;
//                           while it holds, the file <mode-file>.held exists
//   close-before-load       closes stdout and exits (code 4) when session/load arrives
//   reject-load             answers session/load with -32002 resource not found
//   no-load-session         declares agentCapabilities.loadSession = false
//   resume                  a well-behaved agent that also advertises sessionCapabilities.resume
//                           (session/resume reattaches a stored session without replaying it)
//   reject-resume           advertises resume, answers session/resume with -32002 resource not found
//   close-before-resume     advertises resume, closes stdout and exits (code 7) when session/resume arrives
//   hold-resume             advertises resume, answers session/resume once the --mode-file no longer
//                           says hold-resume (without a mode file: never); <mode-file>.held meanwhile
//   slow-turn               session/prompt takes KANDEV_TEST_AGENT_TURN_MS (default 5000) ms
//   crash-mid-turn          exits (code 5) after streaming the first chunk of a turn
//   reject-new              answers session/new with -32000 authentication required
//   close-before-new        closes stdout and exits (code 6) when session/new arrives
//   leak-secrets            writes a fake credential of every shape the worker redacts
//                           (fake-secrets.tsv beside bin/) to stderr and exits (code 7) before
//                           answering initialize: its stderr ends up in the launch's failure
//   slow-handshake:<ms>     answers initialize, session/new, session/load and session/resume each
//                           <ms> milliseconds late (an agent slow to start)
//   git-credential-on-new:<host>/<owner>/<repo>
//                           runs `git credential fill` for that repository before it answers
//                           session/new, as an agent that clones its repository at once would
// --workspace-mode: the file .kandev-test-agent-mode in the working directory (the session's workspace),
// when it exists, names the mode and wins over every other source: a fault campaign gives each
// session's next agent its own mode while other sessions launch at the same time.
// KANDEV_TEST_AGENT_REPLAY / --replay=N: history messages replayed on session/load (default all).
// KANDEV_TEST_AGENT_STATE_DIR / --state-dir=DIR: where sessions are kept as <id>.json.
// KANDEV_TEST_AGENT_PERMISSION / --ask-permission: ask session/request_permission each turn.
// Prompts starting with "read:<path>" or "write:<path>:<text>" make the agent call fs/* on the
// client, and the result is echoed in the reply; "env:<NAME>" replies whether NAME is set in the
// agent's environment (and its value), "unsupported" calls terminal/create on the client,
// "git-credential:<host>/<owner>/<repo>" runs `git credential fill` and replies with the username.
// "exit" answers the turn, then exits with code 0 on its own (an agent whose work is done).
// KANDEV_TEST_AGENT_ECHO_ENV=NAME prints NAME's value to stderr at start (to test redaction).
// KANDEV_TEST_AGENT_LAUNCH_LOG / --launch-log=FILE: the process appends one JSON line per event to FILE
// ({"event":"start"|"session"|"stop", "host", "pid", "at", ...}), the host being KANDEV_TEST_AGENT_HOST /
// --host=NAME: which host ran which agent, and when it stopped (stdin closed or SIGTERM).
// Diagnostics go to stderr.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');

const PROTOCOL_VERSION = 1;
const VERSION = '1.0.0';
const MODES = [
  'normal', 'exit-before-initialize', 'hang-initialize', 'hold-initialize', 'hold-load', 'close-before-load',
  'reject-load', 'no-load-session', 'slow-turn', 'crash-mid-turn', 'reject-new',
  'close-before-new', 'leak-secrets', 'resume', 'reject-resume', 'close-before-resume', 'hold-resume',
];
const RESUME_MODES = ['resume', 'reject-resume', 'close-before-resume', 'hold-resume'];

function flag(name) {
  const prefix = `--${name}=`;
  const hit = process.argv.slice(2).find((a) => a.startsWith(prefix));
  return hit === undefined ? undefined : hit.slice(prefix.length);
}

// --mode-file=<path>: the mode is read from that file at start, so a test can make the next
// process of the same agent profile healthy or broken without changing the profile.
const modeFile = flag('mode-file');
const modeFromFile = modeFile && fs.existsSync(modeFile) ? fs.readFileSync(modeFile, 'utf8').trim() : '';
const workspaceModeFile = path.join(process.cwd(), '.kandev-test-agent-mode');
const modeFromWorkspace = process.argv.includes('--workspace-mode') && fs.existsSync(workspaceModeFile)
  ? fs.readFileSync(workspaceModeFile, 'utf8').trim() : '';
const mode = modeFromWorkspace || flag('mode') || modeFromFile || process.env.KANDEV_TEST_AGENT_MODE || 'normal';
const replayLimitText = flag('replay') || process.env.KANDEV_TEST_AGENT_REPLAY;
const replayLimit = replayLimitText === undefined || replayLimitText === '' ? Infinity : Number(replayLimitText);
const stateDir = flag('state-dir') || process.env.KANDEV_TEST_AGENT_STATE_DIR
  || path.join(os.tmpdir(), 'kandev-test-agent-sessions');
const turnMs = Number(flag('turn-ms') || process.env.KANDEV_TEST_AGENT_TURN_MS || 5000);
const askPermission = process.argv.includes('--ask-permission')
  || process.env.KANDEV_TEST_AGENT_PERMISSION === '1';

function log(...args) {
  process.stderr.write(`[kandev-test-agent pid=${process.pid} mode=${mode}] ${args.join(' ')}\n`);
}

const SLOW = /^slow-handshake:(\d+)$/.exec(mode);
const handshakeDelayMs = SLOW ? Number(SLOW[1]) : 0;
if (!MODES.includes(mode) && !mode.startsWith('git-credential-on-new:') && !SLOW) {
  log(`unknown mode '${mode}'; expected one of ${MODES.join(', ')}`);
  process.exit(2);
}
if (Number.isNaN(replayLimit) || replayLimit < 0) {
  log(`replay count '${replayLimitText}' is not a non-negative number`);
  process.exit(2);
}

const hostName = flag('host') || process.env.KANDEV_TEST_AGENT_HOST || '';
const launchLog = flag('launch-log') || process.env.KANDEV_TEST_AGENT_LAUNCH_LOG;

function record(event, fields) {
  if (launchLog) {
    // One short write with O_APPEND: lines of concurrent agents do not interleave.
    fs.appendFileSync(launchLog, `${JSON.stringify({ event, host: hostName, pid: process.pid, at: Date.now(), ...fields })}\n`);
  }
}

log(`started; state dir ${stateDir}`);
record('start', { cwd: process.cwd() });
if (launchLog) {
  process.on('SIGTERM', () => {
    record('stop', { by: 'SIGTERM' });
    process.exit(143);
  });
}
if (process.env.KANDEV_TEST_AGENT_ECHO_ENV) {
  const name = process.env.KANDEV_TEST_AGENT_ECHO_ENV;
  log(`env ${name}=${process.env[name]}`);
}
if (mode === 'leak-secrets') {
  const table = fs.readFileSync(path.join(__dirname, '..', 'fake-secrets.tsv'), 'utf8');
  for (const line of table.split('\n')) {
    if (line.trim() !== '' && !line.startsWith('#')) {
      process.stderr.write(`${line.split('\t')[0]}\n`);
    }
  }
  log('exiting before initialize after leaking secrets, as configured');
  process.exit(7);
}
if (mode === 'exit-before-initialize') {
  log('exiting before initialize as configured');
  process.exit(3);
}

// ---- session storage -------------------------------------------------------------------------

function sessionFile(id) {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
    return null;
  }
  return path.join(stateDir, `${id}.json`);
}

function loadSession(id) {
  const file = sessionFile(id);
  if (file === null || !fs.existsSync(file)) {
    return null;
  }
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function saveSession(session) {
  fs.mkdirSync(stateDir, { recursive: true });
  const file = sessionFile(session.id);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(session, null, 2));
  fs.renameSync(tmp, file);
}

const sessions = new Map(); // loaded or created in this process: id -> session

// ---- JSON-RPC transport ----------------------------------------------------------------------

let nextOutgoingId = 1;
const pendingOutgoing = new Map(); // id -> {resolve, reject}

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

// Asks real git for the credential of https://<host>/<owner>/<repo>, as an agent's `git fetch`
// would: git runs the credential helper its environment configures. The password is not echoed.
function gitCredential(repository) {
  const [host, ...rest] = repository.split('/');
  const git = require('child_process').spawnSync('git', ['credential', 'fill'], {
    input: `protocol=https\nhost=${host}\npath=${rest.join('/')}\n\n`, encoding: 'utf8', timeout: 20000,
  });
  const fields = Object.fromEntries((git.stdout || '').split('\n').filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return git.status === 0
    ? `[git credential username=${fields.username} password-length=${(fields.password || '').length}]`
    : `[git credential failed ${git.status}: ${(git.stderr || '').trim()}]`;
}

function respond(id, result) {
  send({ id, result });
}

function fail(id, code, message, data) {
  send({ id, error: data === undefined ? { code, message } : { code, message, data } });
}

function notify(method, params) {
  send({ method, params });
}

function request(method, params) {
  const id = nextOutgoingId++;
  send({ id, method, params });
  return new Promise((resolve, reject) => pendingOutgoing.set(id, { resolve, reject }));
}

function update(sessionId, sessionUpdate) {
  notify('session/update', { sessionId, update: sessionUpdate });
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (line !== '') {
      handleLine(line);
    }
  }
});
process.stdin.on('end', () => {
  log('stdin closed; exiting');
  record('stop', { by: 'stdin closed' });
  process.exit(0);
});

function handleLine(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch (e) {
    log(`unparseable line: ${e.message}`);
    send({ id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (message.method === undefined && message.id !== undefined) {
    const pending = pendingOutgoing.get(message.id);
    if (pending !== undefined) {
      pendingOutgoing.delete(message.id);
      if (message.error !== undefined) {
        pending.reject(message.error);
      } else {
        pending.resolve(message.result);
      }
    }
    return;
  }
  const handler = handlers[message.method];
  if (handler === undefined) {
    if (message.id !== undefined) {
      fail(message.id, -32601, `Method not found: ${message.method}`);
    }
    return;
  }
  Promise.resolve()
    .then(() => handler(message.params || {}, message.id))
    .catch((e) => {
      log(`${message.method} failed: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
      if (message.id !== undefined) {
        fail(message.id, -32603, `Internal error: ${e && e.message ? e.message : JSON.stringify(e)}`);
      }
    });
}

// ---- ACP methods -----------------------------------------------------------------------------

const cancelled = new Set(); // session ids whose current turn was cancelled

function textOf(blocks) {
  return (blocks || []).filter((b) => b && b.type === 'text').map((b) => b.text).join('');
}

function requireSession(params, id) {
  const session = sessions.get(params.sessionId);
  if (session === undefined) {
    fail(id, -32002, `Resource not found: session ${params.sessionId} is not open`);
  }
  return session;
}

function answerInitialize(id) {
  respond(id, {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: mode !== 'no-load-session',
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      mcpCapabilities: { http: false, sse: false },
      ...(RESUME_MODES.includes(mode) ? { sessionCapabilities: { resume: {} } } : {}),
    },
    authMethods: [],
    agentInfo: { name: 'kandev-test-agent', title: 'Kandev test agent', version: VERSION },
  });
}

// Holds a request while the mode file says `holding` (forever without a mode file); <mode-file>.held
// exists meanwhile, so a test can wait until the request is held.
async function holdWhileModeFileSays(holding, method) {
  if (!modeFile) {
    log(`holding ${method} forever (no mode file)`);
    await new Promise(() => {});
  }
  const held = `${modeFile}.held`;
  fs.writeFileSync(held, `${process.pid}\n`);
  log(`holding ${method} until the mode file changes`);
  await new Promise((resolve) => {
    const poll = setInterval(() => {
      if (fs.readFileSync(modeFile, 'utf8').trim() !== holding) {
        clearInterval(poll);
        resolve();
      }
    }, 25);
  });
  fs.rmSync(held, { force: true });
  log(`${method} released`);
}

// slow-handshake: each handshake request is handled that much later.
function slowly(handler) {
  return (params, id) => (handshakeDelayMs > 0
    ? new Promise((r) => setTimeout(r, handshakeDelayMs)).then(() => handler(params, id)) : handler(params, id));
}

const handlers = {
  initialize(params, id) {
    log(`initialize protocolVersion=${params.protocolVersion}`);
    if (mode === 'hang-initialize') {
      log('not answering initialize as configured');
      return;
    }
    if (mode === 'hold-initialize') {
      const released = () =>
        modeFile && fs.existsSync(modeFile) && fs.readFileSync(modeFile, 'utf8').trim() !== 'hold-initialize';
      log('holding initialize until the mode file changes');
      const poll = setInterval(() => {
        if (released()) {
          clearInterval(poll);
          log('initialize released');
          answerInitialize(id);
        }
      }, 25);
      return;
    }
    answerInitialize(id);
  },

  authenticate(params, id) {
    respond(id, {});
  },

  'session/new'(params, id) {
    if (mode === 'close-before-new') {
      log('closing stdout before answering session/new as configured');
      process.stdout.end(() => process.exit(6));
      return;
    }
    if (mode === 'reject-new') {
      fail(id, -32000, 'Authentication required', { authMethods: ['test-login'] });
      return;
    }
    if (typeof params.cwd !== 'string' || !path.isAbsolute(params.cwd)) {
      fail(id, -32602, 'Invalid params: cwd must be an absolute path');
      return;
    }
    if (mode.startsWith('git-credential-on-new:')) {
      log(`session/new: ${gitCredential(mode.slice('git-credential-on-new:'.length))}`);
    }
    const session = { id: `sess_${crypto.randomUUID().replace(/-/g, '')}`, cwd: params.cwd, messages: [] };
    saveSession(session);
    sessions.set(session.id, session);
    log(`session/new -> ${session.id}`);
    record('session', { sessionId: session.id, loaded: false });
    respond(id, { sessionId: session.id });
  },

  async 'session/load'(params, id) {
    log(`session/load ${params.sessionId}`);
    if (mode === 'no-load-session') {
      fail(id, -32601, 'Method not found: session/load (loadSession capability is false)');
      return;
    }
    if (mode === 'close-before-load') {
      log('closing stdout before answering session/load as configured');
      process.stdout.end(() => process.exit(4));
      return;
    }
    if (mode === 'hold-load' && modeFile) {
      await holdWhileModeFileSays('hold-load', 'session/load');
    }
    const session = mode === 'reject-load' ? null : loadSession(params.sessionId);
    if (session === null) {
      fail(id, -32002, `Resource not found: unknown session ${params.sessionId}`);
      return;
    }
    sessions.set(session.id, session);
    const replay = session.messages.slice(Math.max(0, session.messages.length - replayLimit));
    for (const m of replay) {
      update(session.id, {
        sessionUpdate: m.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
        messageId: m.messageId,
        content: { type: 'text', text: m.text },
      });
    }
    log(`session/load replayed ${replay.length} of ${session.messages.length} messages`);
    record('session', { sessionId: params.sessionId, loaded: true, method: 'session/load' });
    respond(id, {});
  },

  async 'session/resume'(params, id) {
    log(`session/resume ${params.sessionId}`);
    if (!RESUME_MODES.includes(mode)) {
      fail(id, -32601, 'Method not found: session/resume (sessionCapabilities.resume is not advertised)');
      return;
    }
    if (mode === 'close-before-resume') {
      log('closing stdout before answering session/resume as configured');
      process.stdout.end(() => process.exit(7));
      return;
    }
    if (mode === 'hold-resume') {
      await holdWhileModeFileSays('hold-resume', 'session/resume');
    }
    if (typeof params.cwd !== 'string' || !path.isAbsolute(params.cwd)) {
      fail(id, -32602, 'Invalid params: cwd must be an absolute path');
      return;
    }
    const session = mode === 'reject-resume' ? null : loadSession(params.sessionId);
    if (session === null) {
      fail(id, -32002, `Resource not found: unknown session ${params.sessionId}`);
      return;
    }
    sessions.set(session.id, session);
    log(`session/resume of ${session.messages.length} messages, none replayed`);
    record('session', { sessionId: params.sessionId, loaded: true, method: 'session/resume' });
    respond(id, {});
  },

  async 'session/prompt'(params, id) {
    const session = requireSession(params, id);
    if (session === undefined) {
      return;
    }
    cancelled.delete(session.id);
    const text = textOf(params.prompt);
    log(`session/prompt ${session.id}: ${text.length} chars`);
    session.messages.push({ messageId: `msg_${crypto.randomUUID()}`, role: 'user', text });
    saveSession(session);

    const replyId = `msg_${crypto.randomUUID()}`;
    update(session.id, {
      sessionUpdate: 'agent_message_chunk', messageId: replyId, content: { type: 'text', text: 'Working on: ' },
    });
    if (mode === 'crash-mid-turn') {
      log('crashing mid-turn as configured');
      process.exit(5);
    }
    let reply = `Working on: ${text}`;
    let rest = text;

    if (askPermission) {
      const outcome = await request('session/request_permission', {
        sessionId: session.id,
        toolCall: { toolCallId: `call_${nextOutgoingId}`, title: 'Edit files', kind: 'edit', status: 'pending' },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      });
      const decision = outcome.outcome.outcome === 'selected' ? outcome.outcome.optionId : 'cancelled';
      rest += ` [permission: ${decision}]`;
    }
    if (text.startsWith('read:')) {
      try {
        const result = await request('fs/read_text_file', { sessionId: session.id, path: text.slice(5) });
        rest = `${text} [read: ${result.content}]`;
      } catch (e) {
        rest = `${text} [read error ${e.code}: ${e.message}]`;
      }
    } else if (text.startsWith('write:')) {
      const [, target, ...content] = text.split(':');
      try {
        await request('fs/write_text_file', { sessionId: session.id, path: target, content: content.join(':') });
        rest = `${text} [written]`;
      } catch (e) {
        rest = `${text} [write error ${e.code}: ${e.message}]`;
      }
    } else if (text.startsWith('env:')) {
      const name = text.slice(4);
      rest = `${text} [env ${name}=${process.env[name] === undefined ? '<unset>' : process.env[name]}]`;
    } else if (text.startsWith('git-credential:')) {
      rest = `${text} ${gitCredential(text.slice('git-credential:'.length))}`;
    } else if (text === 'unsupported') {
      try {
        await request('terminal/create', { sessionId: session.id, command: 'true' });
        rest = `${text} [terminal created]`;
      } catch (e) {
        rest = `${text} [terminal error ${e.code}: ${e.message}]`;
      }
    }

    if (mode === 'slow-turn') {
      const deadline = Date.now() + turnMs;
      while (Date.now() < deadline && !cancelled.has(session.id)) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (cancelled.has(session.id)) {
      session.messages.push({ messageId: replyId, role: 'agent', text: 'Working on: ' });
      saveSession(session);
      respond(id, { stopReason: 'cancelled' });
      return;
    }
    update(session.id, { sessionUpdate: 'agent_message_chunk', messageId: replyId, content: { type: 'text', text: rest } });
    reply = `Working on: ${rest}`;
    session.messages.push({ messageId: replyId, role: 'agent', text: reply });
    saveSession(session);
    respond(id, { stopReason: 'end_turn' });
    if (text === 'exit') {
      process.stdout.write('', () => process.exit(0));
    }
  },

  'session/cancel'(params) {
    log(`session/cancel ${params.sessionId}`);
    cancelled.add(params.sessionId);
  },
};
for (const method of ['initialize', 'session/new', 'session/load', 'session/resume']) {
  handlers[method] = slowly(handlers[method]);
}
