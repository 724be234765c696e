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

  function wire(video) {
    // Loaded but not drawn: the captions are in the picture already (a viewer can still pick the
    // track in the player's menu).
    Array.prototype.forEach.call(video.textTracks, function (t) { if (t.mode === "disabled") t.mode = "hidden"; });
    var section = video.closest("section");
    var cueButtons = Array.prototype.slice.call(section.querySelectorAll("button.cue"));
    var cues = cueButtons.map(function (b) {
      return { el: b, start: parseFloat(b.dataset.start), end: parseFloat(b.dataset.end) };
    });
    var sceneLinks = Array.prototype.slice.call(document.querySelectorAll('a[data-seek][data-video="' + video.id + '"]'));
    var scenes = [];
    section.querySelectorAll("ol.scenes a[data-seek]").forEach(function (a) {
      scenes.push({ start: parseFloat(a.dataset.seek), el: a.parentElement });
    });
    var list = section.querySelector(".transcript ol");
    var follow = list ? roving(list, cueButtons) : function () {};
    var currentCue = -1, currentScene = -1;

    function update() {
      var t = video.currentTime;
      var i = locate(cues, t);
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
      var k = locate(scenes, t);
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
    // At the end of a chapter, offer the next one.
    video.addEventListener("ended", function () {
      var next = document.getElementById(video.dataset.next || "");
      if (next) next.closest("section").scrollIntoView({ behavior: "smooth" });
    });
    update();
  }

  function start() {
    document.querySelectorAll("section.chapter video").forEach(wire);
    if (location.protocol === "file:") {
      document.querySelectorAll("[data-needs-http]").forEach(function (el) {
        el.hidden = false;
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
