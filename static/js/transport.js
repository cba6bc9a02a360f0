// One client for the page: frames go over the WebSocket, or over plain HTTP when a proxy
// blocks WebSockets. Answers are matched to frames by id. A frame whose answer was lost with a
// dropped socket is sent again on the next socket: changes carry a sequence number, so the
// server applies a retried change once.
import { t } from "./i18n.js";
const OPEN_TIMEOUT_MS = 4000;
// the server closed a silent socket: reconnect on the next frame, not before (lesson/web/socket.py: IDLE)
const IDLE = 4408;

// The page protocol's version, as lesson/playground/protocol.py has it (PROTOCOL_VERSION).
export const PROTOCOL = 2;
// The page's locale (<html data-locale>): the server writes each answer's narration in it.
export const LANG = document.documentElement.dataset.locale;

// Where the app is mounted (<html data-base>, e.g. "/training/mcp/"): every URL is built from it.
export function appUrl(path) {
  const base = new URL(document.documentElement.dataset.base || "/", window.location.href);
  return new URL(path, base);
}

// A socket's address under the app's: ws:, or wss: on a page served over https.
export function socketUrl(path) {
  const url = appUrl(path);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url;
}

export class Transport {
  constructor(statusEl) {
    this.statusEl = statusEl;
    this.mode = "connecting";
    this.nextId = 1;
    // id -> { frame, resolve, reject }
    this.pending = new Map();
    this.listeners = [];
    this.retry = 250;
    this.everOpened = false;
    this.connect();
  }

  onReconnect(fn) {
    this.listeners.push(fn);
  }

  status(text) {
    if (this.statusEl) this.statusEl.textContent = text;
  }

  connect() {
    const url = socketUrl("ws");
    let opened = false;
    let openedAt = 0;
    let socket;
    this.mode = "connecting";
    try {
      socket = new WebSocket(url);
    } catch {
      this.fallBack();
      return;
    }
    this.socket = socket;
    const timer = setTimeout(() => {
      if (!opened) socket.close();
    }, OPEN_TIMEOUT_MS);
    socket.addEventListener("open", () => {
      opened = true;
      clearTimeout(timer);
      const reconnected = this.everOpened;
      this.everOpened = true;
      this.mode = "ws";
      openedAt = Date.now();
      const quiet = this.quiet;
      this.quiet = false;
      if (reconnected && !quiet) this.status(t("transport.reconnected"));
      for (const { frame } of this.pending.values()) socket.send(JSON.stringify(frame));
      if (reconnected && !quiet) for (const fn of this.listeners) fn();
    });
    socket.addEventListener("message", (event) => {
      let answer;
      try {
        answer = JSON.parse(event.data);
      } catch {
        return;
      }
      // the server answers: the next drop is news, not a refusal repeating
      this.retry = 250;
      this.settle(answer);
    });
    socket.addEventListener("close", (event) => {
      clearTimeout(timer);
      if (this.mode === "http") return;
      if (!this.everOpened) {
        this.fallBack();
        return;
      }
      if (event.code === IDLE && this.pending.size === 0) {
        // Nothing to say for a while: the next frame opens a socket again.
        this.mode = "idle";
        return;
      }
      this.mode = "connecting";
      this.status(t("transport.lost"));
      // A server that accepts sockets and closes them at once (too many from this address, a policy
      // close) is not to be hammered: the delay doubles until an answer arrives, or a socket lasts.
      if (opened && Date.now() - openedAt > 10000) this.retry = 250;
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    });
  }

  fallBack() {
    this.mode = "http";
    this.status(t("transport.http"));
    for (const { frame } of this.pending.values()) this.post(frame);
  }

  settle(answer) {
    const waiter = this.pending.get(answer.re);
    if (!waiter) return;
    this.pending.delete(answer.re);
    waiter.resolve(answer);
  }

  async post(frame) {
    try {
      const resp = await fetch(appUrl("api/frame"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(frame),
      });
      this.settle(await resp.json());
    } catch (err) {
      const waiter = this.pending.get(frame.id);
      if (waiter) {
        this.pending.delete(frame.id);
        waiter.reject(err);
      }
    }
  }

  send(frame) {
    const full = { v: PROTOCOL, id: this.nextId++, lang: LANG, ...frame };
    const answer = new Promise((resolve, reject) => this.pending.set(full.id, { frame: full, resolve, reject }));
    if (this.mode === "http") this.post(full);
    else if (this.mode === "ws" && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(full));
    else if (this.mode === "idle") {
      this.quiet = true;
      this.connect();
    }
    // Otherwise it goes out when the socket opens.
    return answer;
  }
}
