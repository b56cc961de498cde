"""A club's data as a file: the organiser's export and import (``archive``), a member's own data
(``member``) and a member leaving the site while the books keep their lines (``leaving``)."""
