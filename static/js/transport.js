// One client for the page: frames go over the WebSocket, or over plain HTTP when a proxy
// blocks WebSockets. Answers are matched to frames by id.
const OPEN_TIMEOUT_MS = 4000;

export class Transport {
  constructor(statusEl) {
    this.statusEl = statusEl;
    this.mode = "connecting";
    this.nextId = 1;
    this.pending = new Map();
    this.queue = [];
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
    const url = new URL("/ws", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    let opened = false;
    let socket;
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
      this.retry = 250;
      this.status(reconnected ? "Reconnected." : "");
      for (const frame of this.queue.splice(0)) socket.send(JSON.stringify(frame));
      if (reconnected) for (const fn of this.listeners) fn();
    });
    socket.addEventListener("message", (event) => {
      let answer;
      try {
        answer = JSON.parse(event.data);
      } catch {
        return;
      }
      this.settle(answer);
    });
    socket.addEventListener("close", () => {
      clearTimeout(timer);
      if (this.mode === "http") return;
      if (!this.everOpened) {
        this.fallBack();
        return;
      }
      // A dropped socket: answers in flight are lost, so the panels reload from their handles.
      this.mode = "connecting";
      this.status("Connection lost; reconnecting…");
      for (const [id, waiter] of this.pending) {
        waiter.reject(new Error("connection lost"));
        this.pending.delete(id);
      }
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    });
  }

  fallBack() {
    this.mode = "http";
    this.status("Live connection unavailable; using plain HTTP.");
    const queued = this.queue.splice(0);
    for (const frame of queued) this.post(frame);
  }

  settle(answer) {
    const waiter = this.pending.get(answer.re);
    if (!waiter) return;
    this.pending.delete(answer.re);
    waiter.resolve(answer);
  }

  async post(frame) {
    try {
      const resp = await fetch("/api/frame", {
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
    const full = { v: 1, id: this.nextId++, ...frame };
    const answer = new Promise((resolve, reject) => this.pending.set(full.id, { resolve, reject }));
    if (this.mode === "http") this.post(full);
    else if (this.mode === "ws" && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(full));
    else this.queue.push(full);
    return answer;
  }
}
