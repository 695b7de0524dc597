// Drag-and-drop of several files onto the snapshot upload form. Without this
// script the form still works: the file picker accepts several files.
(function () {
  "use strict";
  function init() {
    var zone = document.getElementById("dropzone");
    if (!zone) return;
    var input = document.getElementById(zone.dataset.input);
    var list = document.getElementById("file-list");
    if (!input || typeof DataTransfer === "undefined") return;

    function show() {
      list.innerHTML = "";
      Array.prototype.forEach.call(input.files, function (f) {
        var li = document.createElement("li");
        li.textContent = f.name + " (" + Math.max(1, Math.round(f.size / 1024)) + " KB)";
        list.appendChild(li);
      });
    }

    function add(files) {
      // Merge the dropped files with those already chosen (by name).
      var dt = new DataTransfer();
      var seen = {};
      Array.prototype.forEach.call(input.files, function (f) { seen[f.name] = true; dt.items.add(f); });
      Array.prototype.forEach.call(files, function (f) { if (!seen[f.name]) dt.items.add(f); });
      input.files = dt.files;
      show();
    }

    ["dragenter", "dragover"].forEach(function (type) {
      zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (type) {
      zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (e) {
      if (e.dataTransfer && e.dataTransfer.files.length) add(e.dataTransfer.files);
    });
    input.addEventListener("change", show);
    // Files picked before this deferred script ran (a fast click, a slow network) had
    // no listener yet: list them now.
    show();
    var form = document.getElementById("upload-form");
    var button = document.getElementById("upload-submit");
    if (form && button) {
      form.addEventListener("submit", function () { button.disabled = true; button.textContent = "Uploading…"; });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
