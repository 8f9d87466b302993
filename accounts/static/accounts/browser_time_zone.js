// The sign-up form's hidden time zone field gets the browser's own zone (Intl), so that a new
// player's deadlines and digest hour are in their time from the first email on; the server
// keeps it only if it lists the zone (accounts.forms.SignupForm). Without the script it stays
// empty and the account starts in UTC. Loaded on allauth's pages (templates/allauth/layouts/
// base.html); on the others there is no such field.
(function () {
  "use strict";
  var field = document.querySelector("form input[type=hidden][name=time_zone]");
  if (!field || field.value) {
    return;
  }
  try {
    field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    // an old browser without Intl: the account starts in UTC
  }
})();
