/* SCORM 1.2 launch page: find the LMS API, frame the lesson, relay its statements into the LMS.
 *
 * The lesson (in the iframe) posts {context: 'lesson', action: 'ready'} and then
 * {context: 'lesson', action: 'statement', statement} messages whose statements are xAPI-shaped
 * (see lesson/portal/xapi.py). This page answers 'ready' with {context: 'lesson', action: 'resume',
 * progress, learner} so a returning learner continues where they left off (and forgets that
 * progress on {context: 'lesson', action: 'cleared'}, when the learner starts over), and speaks the parent
 * side of the H5P resizer protocol so the frame fits its content. Only messages from the lesson's
 * own frame and origin count.
 */
(function () {
  'use strict';

  var root = document.documentElement;
  var lessonUrl = root.getAttribute('data-lesson-url');
  var lessonOrigin = new URL(lessonUrl).origin;
  var mastery = Number(root.getAttribute('data-mastery') || '80');
  var frame = document.getElementById('lesson-frame');
  var statusEl = document.getElementById('scorm-status');
  var SUSPEND_LIMIT = 4096; // cmi.suspend_data holds at most 4096 characters in SCORM 1.2
  var TASK_LOG = 40; // a response longer than this is a playground's log, not a choice's id
  var started = Date.now();

  // Standard SCORM 1.2 discovery: walk up the parents (at most 7), then try the opener's chain.
  function findAPI(win) {
    for (var tries = 0; win && tries <= 7; tries++) {
      try {
        if (win.API) return win.API;
      } catch (e) { /* a cross-origin window: keep climbing */ }
      if (!win.parent || win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  var api = findAPI(window) || (window.opener ? findAPI(window.opener) : null);

  function call(name, a, b) {
    if (!api) return '';
    try {
      var out = String(api[name](a === undefined ? '' : a, b));
      var code = api.LMSGetLastError ? String(api.LMSGetLastError()) : '0';
      if (code !== '0' && code !== '') console.warn('SCORM ' + name + '(' + a + ') error ' + code);
      return out;
    } catch (e) {
      console.warn('SCORM ' + name + ' threw', e);
      return '';
    }
  }
  function set(key, value) { return call('LMSSetValue', key, String(value)); }

  function fresh() { return { v: 1, s: [], a: {}, g: [], c: false, sc: null, p: null }; }
  var progress = fresh();
  var learner = null;
  var finished = false;

  // The status lines come from the message catalogue, rendered into the page's data attributes.
  function say(which) { statusEl.textContent = statusEl.getAttribute('data-' + which) || ''; }

  if (api && call('LMSInitialize', '') === 'true') {
    var saved = call('LMSGetValue', 'cmi.suspend_data');
    if (saved) {
      try {
        var parsed = JSON.parse(saved);
        if (parsed && parsed.v === 1) progress = Object.assign(progress, parsed);
      } catch (e) { console.warn('SCORM: ignoring unreadable suspend data'); }
    }
    var status = call('LMSGetValue', 'cmi.core.lesson_status');
    if (status === '' || status === 'not attempted') set('cmi.core.lesson_status', 'incomplete');
    var id = call('LMSGetValue', 'cmi.core.student_id');
    if (id) learner = { id: id, name: call('LMSGetValue', 'cmi.core.student_name') };
    call('LMSCommit', '');
    say('recorded');
  } else {
    api = null;
    say('unrecorded');
  }
  frame.src = lessonUrl;

  function post(message) {
    if (frame.contentWindow) frame.contentWindow.postMessage(message, lessonOrigin);
  }

  function part(statement) {
    var match = /\/(section|question|goal)\/([^/?#]+)$/.exec(statement.object && statement.object.id || '');
    return match ? { kind: match[1], id: decodeURIComponent(match[2]) } : { kind: 'lesson', id: '' };
  }

  function addOnce(list, value) { if (list.indexOf(value) < 0) list.push(value); }

  function apply(statement) {
    var verb = String(statement.verb && statement.verb.id || '').split('/').pop();
    var target = part(statement);
    var result = statement.result || {};
    if (verb === 'experienced' && target.kind === 'section') addOnce(progress.s, target.id);
    else if (verb === 'answered' && target.kind === 'question') {
      progress.a[target.id] = [String(result.response || ''), result.success ? 1 : 0];
    } else if (verb === 'completed' && target.kind === 'goal') addOnce(progress.g, target.id);
    else if (verb === 'completed' && target.kind === 'lesson') progress.c = true;
    else if ((verb === 'passed' || verb === 'failed') && target.kind === 'lesson') {
      var scaled = Number(result.score && result.score.scaled);
      if (!(scaled >= 0 && scaled <= 1)) return false;
      progress.sc = scaled;
      progress.p = verb === 'passed';
      progress.c = true;
    } else return false;
    return true;
  }

  // The answer with the longest response, if it is longer than `over` characters (else null).
  function longestAnswer(answers, over) {
    var found = null;
    for (var id in answers) {
      if (Object.prototype.hasOwnProperty.call(answers, id) && answers[id][0].length > over &&
          (found === null || answers[id][0].length > answers[found][0].length)) found = id;
    }
    return found;
  }

  function suspendData() {
    var text = JSON.stringify(progress);
    // Too long for SCORM 1.2: keep what fits. First forget long task answers (a playground's log can
    // be thousands of characters; the score already counts them), longest first; then the oldest
    // sections read; then other answers, longest first. Goals, completion and the score stay.
    var copy = JSON.parse(text);
    var drop;
    while (text.length > SUSPEND_LIMIT && (drop = longestAnswer(copy.a, TASK_LOG)) !== null) {
      delete copy.a[drop];
      text = JSON.stringify(copy);
    }
    while (text.length > SUSPEND_LIMIT && copy.s.length) {
      copy.s.shift();
      text = JSON.stringify(copy);
    }
    while (text.length > SUSPEND_LIMIT && (drop = longestAnswer(copy.a, -1)) !== null) {
      delete copy.a[drop];
      text = JSON.stringify(copy);
    }
    return text.length <= SUSPEND_LIMIT ? text : JSON.stringify({ v: 1, s: [], a: {}, g: [], c: progress.c, sc: progress.sc, p: progress.p });
  }

  function report() {
    if (!api) return;
    if (progress.sc !== null) {
      var raw = Math.round(progress.sc * 100);
      set('cmi.core.score.min', 0);
      set('cmi.core.score.max', 100);
      set('cmi.core.score.raw', raw);
      // The package's mastery score decides (export-scorm --mastery), not the lesson's own 80%.
      set('cmi.core.lesson_status', raw >= mastery ? 'passed' : 'failed');
    } else if (progress.c) {
      set('cmi.core.lesson_status', 'completed');
    }
    set('cmi.suspend_data', suspendData());
    set('cmi.core.exit', progress.c ? '' : 'suspend');
    call('LMSCommit', '');
  }

  // The parent side of the H5P resizer: the frame grows and shrinks with the lesson.
  var h5p = {
    hello: function (data, respond) { respond('hello'); },
    prepareResize: function (data, respond) {
      if (frame.clientHeight !== data.scrollHeight || data.scrollHeight !== data.clientHeight) {
        frame.style.height = data.clientHeight + 'px';
        respond('resizePrepared');
      }
    },
    resize: function (data) { frame.style.height = data.scrollHeight + 'px'; }
  };

  window.addEventListener('message', function (event) {
    if (event.source !== frame.contentWindow || event.origin !== lessonOrigin) return;
    var data = event.data;
    if (!data || typeof data !== 'object') return;
    if (data.context === 'h5p' && Object.prototype.hasOwnProperty.call(h5p, data.action)) {
      h5p[data.action](data, function (action) { post({ context: 'h5p', action: action }); });
    } else if (data.context === 'lesson' && data.action === 'ready') {
      post({ context: 'lesson', action: 'resume', progress: progress, learner: learner });
    } else if (data.context === 'lesson' && data.action === 'cleared') {
      // The learner started over: nothing to resume from. The status and score the LMS recorded
      // stay until new statements change them.
      progress = fresh();
      report();
    } else if (data.context === 'lesson' && data.action === 'statement' && data.statement) {
      if (apply(data.statement)) report();
    }
  });

  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function sessionTime() {
    var s = Math.max(0, Math.round((Date.now() - started) / 1000));
    return pad(Math.floor(s / 3600)) + ':' + pad(Math.floor(s / 60) % 60) + ':' + pad(s % 60);
  }

  function finish() {
    if (!api || finished) return;
    finished = true;
    set('cmi.core.session_time', sessionTime());
    report();
    call('LMSFinish', '');
  }
  window.addEventListener('pagehide', finish);
  window.addEventListener('beforeunload', finish);
})();
