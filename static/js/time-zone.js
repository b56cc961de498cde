// Sign-up: the new account takes the browser's time zone (the server checks the name; without this
// script the site's zone is used and the member can change it on their profile).
(function () {
  "use strict";
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    return;
  }
  document.querySelectorAll("input[data-browser-zone]").forEach(function (input) {
    if (!input.value) input.value = zone;
  });
})();
