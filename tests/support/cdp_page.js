// Loads one page in headless Chromium through the DevTools protocol and reports what a
// person would meet: every console message and page error (CSP violations and failed loads
// included), the page's width on a phone-sized screen, the rendered DOM, and a screenshot.
//
//   node --experimental-websocket cdp_page.js CHROMIUM PROFILE URL SCREENSHOT [QUERY AT]
//
// With QUERY and AT, the page's SPARQL form is filled in and submitted (its button clicked),
// and the report is of the page the submission leads to. Output, on stdout:
//   CONSOLE <level> <text>   one line per message (none on a clean page)
//   FOCUS <tag> <where> <href>  with CDP_TABS=N: the focused element after each of N Tabs
//   PHONE-WIDTH <n>          the document's scroll width at a 390 px wide viewport
//   HTML                     then the DOM, to the end
// Beside SCREENSHOT (the whole page) it writes SCREENSHOT's name with -small: the top
// 1280 x 1000 pixels at half size, the size of the guide's pictures.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const [chromium, profile, url, screenshot, query, at] = process.argv.slice(2);

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main() {
  const browser = spawn(chromium, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-extensions', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    'about:blank',
  ], { stdio: ['ignore', 'ignore', 'ignore'] });
  const deadline = Date.now() + 60000;
  const portFile = path.join(profile, 'DevToolsActivePort');
  while (!fs.existsSync(portFile) || fs.readFileSync(portFile, 'utf8').split('\n').length < 2) {
    if (Date.now() > deadline) throw new Error('chromium did not open its DevTools port');
    await sleep(50);
  }
  const port = fs.readFileSync(portFile, 'utf8').split('\n')[0].trim();
  let target;
  while (!target) {
    try {
      const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      target = list.find((t) => t.type === 'page');
    } catch (error) {
      // Not listening yet.
      if (Date.now() > deadline) throw error;
    }
    if (!target) await sleep(50);
  }
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 1;
  const pending = new Map();
  const waiters = [];
  const messages = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(JSON.stringify(message.error)));
      else resolve(message.result);
      return;
    }
    switch (message.method) {
      case 'Runtime.consoleAPICalled':
        messages.push(`${message.params.type} ${message.params.args.map((a) => a.value ?? a.description).join(' ')}`);
        break;
      case 'Runtime.exceptionThrown':
        messages.push(`exception ${message.params.exceptionDetails.text}`);
        break;
      case 'Log.entryAdded':
        messages.push(`${message.params.entry.level} ${message.params.entry.text} ${message.params.entry.url || ''}`);
        break;
      default:
        break;
    }
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].method === message.method) {
        waiters[i].resolve(message.params);
        waiters.splice(i, 1);
      }
    }
  };
  const send = (method, params = {}) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    socket.send(JSON.stringify({ id, method, params }));
  });
  const once = (method) => new Promise((resolve) => waiters.push({ method, resolve }));
  const evaluate = async (expression) => {
    const result = await send('Runtime.evaluate', { expression, returnByValue: true });
    return result.result.value;
  };

  await send('Page.enable');
  await send('Runtime.enable');
  await send('Log.enable');
  await send('Emulation.setDeviceMetricsOverride', {
    width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false,
  });
  let loaded = once('Page.loadEventFired');
  await send('Page.navigate', { url });
  await loaded;
  if (query !== undefined) {
    // What a person does: type into the form's fields and press its button.
    loaded = once('Page.loadEventFired');
    await evaluate(`(() => {
      document.getElementById('query').value = ${JSON.stringify(query)};
      document.getElementById('at').value = ${JSON.stringify(at)};
      document.querySelector('#sparql-form button[type=submit]').click();
    })()`);
    await loaded;
  }
  await sleep(100);
  const shot = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  fs.writeFileSync(screenshot, Buffer.from(shot.data, 'base64'));
  // A small one for the guide: the top of the page at half size.
  const small = await send('Page.captureScreenshot', {
    format: 'png', clip: { x: 0, y: 0, width: 1280, height: 1000, scale: 0.5 },
  });
  fs.writeFileSync(screenshot.replace(/\.png$/, '-small.png'), Buffer.from(small.data, 'base64'));
  const html = await evaluate('document.documentElement.outerHTML');
  // With CDP_TABS=N, the Tab key pressed N times: where the focus goes, as a keyboard user
  // moves through the page.
  const focus = [];
  for (let n = 0; n < Number(process.env.CDP_TABS || 0); n++) {
    for (const type of ['rawKeyDown', 'keyUp']) {
      await send('Input.dispatchKeyEvent', {
        type, key: 'Tab', code: 'Tab', windowsVirtualKeyCode: 9, nativeVirtualKeyCode: 9,
      });
    }
    focus.push(await evaluate(`(() => {
      const e = document.activeElement;
      return [e.tagName.toLowerCase(), e.closest('svg') ? 'in-chart' : 'page',
        e.getAttribute('href') || ''].join(' ');
    })()`));
  }
  await send('Emulation.setDeviceMetricsOverride', {
    width: 390, height: 844, deviceScaleFactor: 2, mobile: true,
  });
  await sleep(100);
  const phoneWidth = await evaluate('document.documentElement.scrollWidth');
  for (const message of messages) process.stdout.write(`CONSOLE ${message.replace(/\n/g, ' ')}\n`);
  for (const line of focus) process.stdout.write(`FOCUS ${line}\n`);
  process.stdout.write(`PHONE-WIDTH ${phoneWidth}\n`);
  process.stdout.write(`HTML\n${html}\n`);
  try {
    await send('Browser.close');
  } catch (_) {
    // The browser may close the socket first.
  }
  socket.close();
  browser.kill();
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
