// The chapters' players: transcript lines seek, the line being spoken and the scene being shown
// are highlighted, scene links seek. A classic script (not a module), so it also runs when the
// page is opened from disk (file://), where browsers refuse ES modules.
"use strict";

(function () {
  function clock(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // Index of the item whose [start, end) holds t, else the last one started before t (or -1).
  function locate(items, t) {
    var found = -1;
    for (var i = 0; i < items.length; i++) {
      if (items[i].start <= t + 1e-3) found = i; else break;
    }
    return found;
  }

  function seek(video, seconds) {
    video.currentTime = seconds;
    var played = video.play();
    if (played && played.catch) played.catch(function () { /* autoplay refused: stays paused */ });
  }

  // Scroll the transcript list (and only it) so that `item` is inside its visible part. Both
  // positions are measured on screen, so nothing depends on which element is an offsetParent.
  function keepVisible(list, item) {
    var box = list.getBoundingClientRect(), r = item.getBoundingClientRect();
    var top = r.top - box.top - list.clientTop + list.scrollTop, bottom = top + r.height;
    if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 3);
    }
  }

  // The transcript is one Tab stop: the line that has tabindex 0 (the spoken one, or the last one
  // focused); the arrow keys, Home/End and Page Up/Down move between lines, Enter or Space seeks.
  function roving(list, buttons) {
    if (!buttons.length) return function () {};
    var stop = buttons[0];
    buttons.forEach(function (b) { b.tabIndex = b === stop ? 0 : -1; });
    function setStop(b) { if (b !== stop) { stop.tabIndex = -1; b.tabIndex = 0; stop = b; } }
    list.addEventListener("keydown", function (event) {
      var i = buttons.indexOf(document.activeElement);
      if (i === -1) return;
      var page = Math.max(1, Math.floor(list.clientHeight / Math.max(1, buttons[i].offsetHeight)) - 1);
      var to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: buttons.length - 1,
                 PageDown: i + page, PageUp: i - page }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      var b = buttons[Math.max(0, Math.min(buttons.length - 1, to))];
      setStop(b);
      b.focus({ preventScroll: true });
      keepVisible(list, b);
    });
    list.addEventListener("focusin", function (event) {
      if (buttons.indexOf(event.target) !== -1) setStop(event.target);
    });
    return function follow(b) { if (!list.contains(document.activeElement)) setStop(b); };
  }

  var active = null;   // the video last played: the one the contents highlight

  // The subtitle track, built from the transcript beside the player (the same lines at the same
  // times, written once in the page): hidden, not drawn, since the captions are in the picture
  // already; a viewer can still pick it in the player's menu, full screen too.
  function addSubtitles(video, cues) {
    if (!cues.length || !video.addTextTrack || typeof VTTCue === "undefined") return;
    var track = video.addTextTrack("subtitles", "English", "en");
    cues.forEach(function (c) { track.addCue(new VTTCue(c.start, c.end, c.el.querySelector(".text").textContent)); });
    track.mode = "hidden";
  }

  // A chapter's poster is fetched as its player comes near the screen (data-poster), not on a
  // first visit to the top of the page.
  var posters = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (!e.isIntersecting) return;
      e.target.poster = e.target.dataset.poster;
      posters.unobserve(e.target);
    });
  }, { rootMargin: "25% 0px" }) : null;

  function wire(video) {
    var section = video.closest("section");
    var cueButtons = Array.prototype.slice.call(section.querySelectorAll("button.cue"));
    var cues = cueButtons.map(function (b) {
      return { el: b, start: parseFloat(b.dataset.start), end: parseFloat(b.dataset.end) };
    });
    addSubtitles(video, cues);
    if (video.dataset.poster) {
      if (posters) posters.observe(video); else video.poster = video.dataset.poster;
    }
    var sceneLinks = Array.prototype.slice.call(document.querySelectorAll('a[data-seek][data-video="' + video.id + '"]'));
    var scenes = [];
    section.querySelectorAll("ol.scenes a[data-seek]").forEach(function (a) {
      scenes.push({ start: parseFloat(a.dataset.seek), el: a.parentElement });
    });
    var list = section.querySelector(".transcript ol");
    var follow = list ? roving(list, cueButtons) : function () {};
    var currentCue = -1, currentScene = -1;
    // Nothing is "being shown" until the video is played or moved: on load no scene is lit.
    var engaged = false;
    ["play", "seeking"].forEach(function (e) { video.addEventListener(e, function () { engaged = true; }); });

    function update() {
      var t = video.currentTime;
      var i = engaged ? locate(cues, t) : -1;
      if (i !== -1 && t >= cues[i].end - 1e-3) i = -1;     // between two lines: none is current
      if (i !== currentCue) {
        if (currentCue !== -1) { cues[currentCue].el.classList.remove("current"); cues[currentCue].el.removeAttribute("aria-current"); }
        currentCue = i;
        if (i !== -1) {
          cues[i].el.classList.add("current");
          cues[i].el.setAttribute("aria-current", "true");
          if (list) keepVisible(list, cues[i].el);
          follow(cues[i].el);
        }
      }
      var k = engaged ? locate(scenes, t) : -1;
      if (k !== currentScene) {
        scenes.forEach(function (s, j) { s.el.classList.toggle("current", j === k); });
        currentScene = k;
        markContents();
      }
    }

    function markContents() {
      if (active !== video) return;
      document.querySelectorAll("nav.toc li.current").forEach(function (li) { li.classList.remove("current"); });
      var toc = document.querySelectorAll('nav.toc a[data-video="' + video.id + '"]');
      if (currentScene >= 0 && toc[currentScene]) toc[currentScene].parentElement.classList.add("current");
    }

    var frame = null;
    function tick() { update(); frame = video.paused ? null : requestAnimationFrame(tick); }
    video.addEventListener("play", function () {
      active = video;
      markContents();
      if (frame === null) frame = requestAnimationFrame(tick);
    });
    ["timeupdate", "seeked", "loadedmetadata"].forEach(function (e) { video.addEventListener(e, update); });

    cueButtons.forEach(function (b) {
      b.addEventListener("click", function () { seek(video, parseFloat(b.dataset.start)); });
    });
    sceneLinks.forEach(function (a) {
      a.addEventListener("click", function (event) {
        event.preventDefault();
        video.scrollIntoView({ block: "nearest" });
        seek(video, parseFloat(a.dataset.seek));
      });
    });
    video.addEventListener("loadedmetadata", function () {
      var out = document.querySelector('[data-duration-of="' + video.id + '"]');
      if (out) out.textContent = clock(video.duration);
    });
    // "Link to this moment": the chapter at the second being shown (see readLink).
    var moment = section.querySelector("a[data-moment]");
    if (moment) {
      var setMoment = function () {
        // To the millisecond (readLink takes t=503.999): a whole second rounded down could land
        // in the scene before the one shown (a scene link seeks to its start, e.g. 503.999 s).
        var s = Math.round((video.currentTime || 0) * 1000) / 1000;
        moment.href = "#" + section.id + "&t=" + s;
        moment.textContent = "Link to " + clock(s);
      };
      ["timeupdate", "seeked", "loadedmetadata"].forEach(function (e) { video.addEventListener(e, setMoment); });
    }
    // At the end of a chapter, offer the next one.
    video.addEventListener("ended", function () {
      var next = document.getElementById(video.dataset.next || "");
      if (next) next.closest("section").scrollIntoView({ behavior: "smooth" });
    });
    update();
  }

  // ---- the link's state: #chapter2&t=261 (a chapter at a second), ?sentence=… (the explorer),
  // ?prompt=…&model=…&temperature=…&seed=…&tokens=…[&compare=1] (a run of the demo, which runs
  // it once; compare=1: the three models side by side). A link is untrusted input: every part is checked here before
  // anything uses it, and a link with any bad part shows one message and applies none of it.
  // explorer.mjs and demo.mjs read what passed from window.lessonLink.

  var LIMITS = { sentence: 300, prompt: 2000, hash: 200, temperature: 10, tokens: 500 };

  function chars(n) { return n.toLocaleString("en-US") + " characters"; }
  // decodeURIComponent throws on a broken %-escape; a link's text is then taken as it stands.
  function decoded(text) { try { return decodeURIComponent(text); } catch (e) { return text; } }
  function shown(text) { return JSON.stringify(text.length > 40 ? text.slice(0, 40) + "…" : text); }

  // The demo's numbers, one rule for a link and for the demo's own form (demo.mjs reads its fields
  // with it, and writes its link with the numbers it read, as String(number) writes them): the text
  // of a number as a number field takes one (".5", "0.1234", "1e3"), read by Number, then its range.
  var NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
  var DEMO_NUMBERS = {
    temperature: { noun: "temperature", ok: function (v) { return v >= 0 && v <= LIMITS.temperature; },
                   rule: "is not a number from 0 to " + LIMITS.temperature },
    seed: { noun: "seed", ok: function (v) { return Number.isInteger(v) && Math.abs(v) < 1e15; },
            rule: "is not a whole number of at most 15 digits" },
    tokens: { noun: "number of tokens", ok: function (v) { return Number.isInteger(v) && v >= 1 && v <= LIMITS.tokens; },
              rule: "is not a whole number from 1 to " + LIMITS.tokens }
  };
  function demoNumber(name, text) {
    var value = typeof text === "string" && NUMBER_TEXT.test(text.trim()) ? Number(text.trim()) : NaN;
    if (!isFinite(value) || !DEMO_NUMBERS[name].ok(value)) return { problem: DEMO_NUMBERS[name].rule };
    return { value: value === 0 ? 0 : value };        // -0 reads and links as 0
  }
  window.lessonDemoNumber = demoNumber;

  // The demo's part of a link (prompt, temperature, seed, tokens, model, compare), checked into `link`; demo.mjs runs
  // the same checks on its own form, so every link the page makes is one it opens.
  function checkDemo(query, link, bad) {
    if (query.has("prompt")) {
      var prompt = query.get("prompt");
      if (prompt.length > LIMITS.prompt) bad("its prompt is " + chars(prompt.length) + " long; at most " + chars(LIMITS.prompt));
      else if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(prompt)) bad("its prompt holds control characters");
      else if (/[<>]/.test(prompt)) bad("its prompt " + shown(prompt) + " holds markup (< or >), which no story the models read has");
      else link.prompt = prompt;
    }
    ["temperature", "seed", "tokens"].forEach(function (name) {
      if (!query.has(name)) return;
      var text = query.get(name), got = demoNumber(name, text);
      if (got.problem) bad("its " + DEMO_NUMBERS[name].noun + " " + shown(text) + " " + got.problem);
      else link[name] = got.value;
    });
    if (query.has("model")) {
      var model = query.get("model");
      var names = Array.prototype.map.call(document.querySelectorAll("#demo-model option"), function (o) { return o.value; });
      if (names.indexOf(model) === -1) {
        bad("it names the model " + shown(model) + ", which this page does not have" +
            (names.length ? " (it has " + names.join(", ") + ")" : ""));
      } else link.model = model;
    }
    if (query.has("compare")) {        // Compare: the three models side by side
      var compare = query.get("compare");
      if (compare !== "1") bad("its compare " + shown(compare) + " is not 1 (the three models side by side)");
      else link.compare = true;
    }
  }
  window.lessonDemoProblems = function (query) {
    var link = { problems: [] };
    checkDemo(query, link, function (why) { link.problems.push(why); });
    return link.problems;
  };

  function readLink() {
    var link = { sentence: null, receiver: null, prompt: null, model: null, temperature: null, seed: null, tokens: null,
                 compare: null, chapter: null, t: null, problems: [] };
    var bad = function (why) { link.problems.push(why); };
    var query;
    try { query = new URLSearchParams(location.search); } catch (e) { query = new URLSearchParams(""); }
    if (query.has("sentence")) {
      var sentence = query.get("sentence");
      if (sentence.length > LIMITS.sentence) {
        bad("its sentence is " + chars(sentence.length) + " long; the explorer takes at most 20 words (" + chars(LIMITS.sentence) + ")");
      } else if (!/^[\p{L}\p{P}\s]*$/u.test(sentence)) {
        // Punctuation is fine (the explorer removes it and says so); markup (<, >, =) is not.
        bad("its sentence " + shown(sentence) + " holds characters other than letters, punctuation and spaces");
      } else if (!sentence.trim()) {
        bad("its sentence is empty");
      } else link.sentence = sentence.trim();
    }
    if (query.has("receiver")) {       // the explorer's receiver: a word's position, 1 to the sentence's length
      var receiver = query.get("receiver"), words = link.sentence ? link.sentence.replace(/\p{P}/gu, " ").trim().split(/\s+/).length : 0;
      if (!/^\d{1,2}$/.test(receiver) || +receiver < 1 || +receiver > words) {
        bad("its receiver " + shown(receiver) + " is not the position of a word of its sentence" +
            (words ? " (1 to " + words + ")" : ""));
      } else link.receiver = +receiver;
    }
    checkDemo(query, link, bad);
    var hash = location.hash.slice(1);
    if (hash.indexOf("&") !== -1 || /^chapter\d+$/.test(hash)) {
      var parts = hash.split("&"), id = decoded(parts[0]);
      var section = hash.length <= LIMITS.hash ? document.getElementById(id) : null;
      if (!section || !section.matches("section.chapter")) {
        bad("it asks for the chapter " + shown(id) + ", which this page does not have");
      } else if (!section.querySelector("video")) {
        bad("chapter " + section.dataset.chapter + " is not built yet");
      } else {
        link.chapter = section;
        parts.slice(1).forEach(function (part) {
          var kv = part.split("="), key = kv[0], value = decoded(kv.slice(1).join("="));
          if (key !== "t") return;                                    // other keys: ignored
          if (!/^\d{1,6}(\.\d{1,3})?$/.test(value)) {
            bad("its time " + shown(value) + " is not a number of seconds from 0 (like t=261)");
          } else link.t = parseFloat(value);
        });
      }
    }
    if (link.problems.length) {
      link.error = "This link could not be opened: " + link.problems.join("; ") + ". The page shows its own start instead.";
      link.sentence = link.receiver = link.prompt = link.model = link.chapter = link.t = null;
      link.temperature = link.seed = link.tokens = link.compare = null;
    }
    return link;
  }

  /** While the banner shows, the section the link landed on starts below it, not under it: the
   * page's scroll padding is the banner's room (the browser's own scroll to the #part keeps it),
   * and a section already at the top is moved down by it. Closed, the padding goes. */
  function clearOfBanner(box) {
    var root = document.documentElement;
    if (box.hidden) { root.style.scrollPaddingTop = ""; return; }
    var room = Math.ceil(box.getBoundingClientRect().bottom + 12);
    root.style.scrollPaddingTop = room + "px";
    var target = document.getElementById(decoded(location.hash.slice(1).split("&")[0]));
    if (!target) return;
    var top = target.getBoundingClientRect().top;
    if (top > -2 && top < room) window.scrollBy(0, top - room);
  }

  function say(text) {
    var box = document.getElementById("link-message");
    if (!box) return;
    box.textContent = text || "";
    box.hidden = !text;
    clearOfBanner(box);
    // The page has landed on the section the link names: the message is fixed in view there
    // (lesson.css) and takes the focus, so a screen reader and a keyboard are on it too.
    if (!text) return;
    box.focus({ preventScroll: true });
    // The browser's scroll to the link's #part, when the page has loaded, clears the focus: again then.
    if (document.readyState !== "complete") {
      window.addEventListener("load", function () {
        if (!box.hidden && box.textContent === text) {
          box.focus({ preventScroll: true });
          requestAnimationFrame(function () { clearOfBanner(box); });
        }
      }, { once: true });
    }
  }

  /** Open the chapter the link names, at its second (checked against the video's length). */
  function openChapter(link) {
    if (!link.chapter) return;
    var video = link.chapter.querySelector("video");
    link.chapter.scrollIntoView();
    if (link.t === null) return;
    var go = function () {
      if (link.t > video.duration) {
        say("This link could not be opened: its time " + link.t + " s is past the end of chapter " +
            link.chapter.dataset.chapter + " (" + clock(video.duration) + ").");
        return;
      }
      video.currentTime = link.t;
    };
    if (video.readyState >= 1) go(); else video.addEventListener("loadedmetadata", go, { once: true });
  }

  function followLink() {
    var link = readLink();
    window.lessonLink = link;
    say(link.error);
    openChapter(link);
    return link;
  }

  function start() {
    document.querySelectorAll("section.chapter video").forEach(wire);
    followLink();
    window.addEventListener("hashchange", followLink);
    var box = document.getElementById("link-message");
    if (box) {
      box.addEventListener("click", function () { say(""); });
      box.addEventListener("keydown", function (e) { if (e.key === "Escape") say(""); });
    }
    if (location.protocol === "file:") {
      document.querySelectorAll("[data-needs-http]").forEach(function (el) {
        el.hidden = false;
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
