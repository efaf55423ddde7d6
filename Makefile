# `sam build` calls this target (template.yaml: Metadata BuildMethod makefile) so the function
# package holds only the app and its run-time dependencies: not .venv, data/, tests or docs.
build-AgentFunction:
	python3.13 -m pip install --quiet --disable-pip-version-check --no-compile \
		--platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 --implementation cp \
		--python-version 3.13 --only-binary=:all: --target "$(ARTIFACTS_DIR)" -r requirements.txt
	cp -R handlers agent_core storage web "$(ARTIFACTS_DIR)/"
	rm -rf "$(ARTIFACTS_DIR)/bin"
	find "$(ARTIFACTS_DIR)" -name __pycache__ -type d -prune -exec rm -rf {} +
