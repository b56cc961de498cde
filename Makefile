# Shortcuts for the two commands in the README (both only need python3).
.PHONY: run test
run:
	python3 scripts/dev.py run
test:
	python3 scripts/dev.py test
