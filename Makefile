# `sam build` calls this target (template.yaml: Metadata BuildMethod makefile) so the function
# package holds only the app and its run-time dependencies: not .venv, data/, tests or docs.
#
# The package ships bytecode for the runtime's Python (3.13): /var/task is read-only, so without it
# every cold start compiles pydantic-ai, FastAPI and the app from source again. `unchecked-hash`
# bytecode is used as is, whatever timestamps the zip gives the sources (PEP 552). Any cache
# copied from the working tree (another Python's) is removed first.
build-AgentFunction:
	python3.13 -m pip install --quiet --disable-pip-version-check --no-compile \
		--platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 --implementation cp \
		--python-version 3.13 --only-binary=:all: --target "$(ARTIFACTS_DIR)" -r requirements.txt
	# Pure Python, installed without their declared dependencies (requirements.txt says why).
	python3.13 -m pip install --quiet --disable-pip-version-check --no-compile --no-deps \
		--target "$(ARTIFACTS_DIR)" "langdetect>=1.0.9" "sacrebleu>=2.4"
	cp -R handlers agent_core storage service interchange langfacts web "$(ARTIFACTS_DIR)/"
	rm -rf "$(ARTIFACTS_DIR)/bin"
	find "$(ARTIFACTS_DIR)" -name __pycache__ -type d -prune -exec rm -rf {} +
	python3.13 -m compileall -q -j 0 --invalidation-mode unchecked-hash "$(ARTIFACTS_DIR)" > /dev/null
