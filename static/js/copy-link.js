// Copy buttons beside read-only links (the club's invitations): shown only when this script runs; a click
// copies the link and says so in the button's status line. Without the clipboard API the link is selected
// for the member to copy themselves.
(function () {
  "use strict";
  function say(button, words) {
    var status = button.parentNode.querySelector(".copy-done");
    if (status) status.textContent = words;
  }
  document.querySelectorAll("button.copy-link[data-copy]").forEach(function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      field.focus();
      field.select();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(function () { say(button, "Copied."); },
          function () { say(button, "Selected: copy it with your keyboard or menu."); });
      } else {
        say(button, "Selected: copy it with your keyboard or menu.");
      }
    });
  });
})();
