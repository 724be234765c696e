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

  function keepVisible(list, item) {
    var top = item.offsetTop - list.offsetTop, bottom = top + item.offsetHeight;
    if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 3);
    }
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
