# `sam build` calls build-AgentFunction (template.yaml: Metadata BuildMethod makefile) so the function
# package holds only the app and its run-time dependencies: not .venv, data/, tests or docs.
#
# The dependencies are pyproject.toml's: the core ones, the `server` extra and the extra of each
# model provider in PROVIDERS (docs/deploy.md): `PROVIDERS=openai sam build` for OpenAI models,
# `PROVIDERS="openai anthropic"` for both. The default, bedrock, adds no package (boto3 is there for
# DynamoDB already) and needs no API key; the offline `pseudo` model works with any.
#
# The package ships bytecode for the runtime's Python (3.13): /var/task is read-only, so without it
# every cold start compiles pydantic-ai, FastAPI and the app from source again. `unchecked-hash`
# bytecode is used as is, whatever timestamps the zip gives the sources (PEP 552). Any cache
# copied from the working tree (another Python's) is removed first.
#
# What the function never reads is pruned (docs/benchmarks.md, the package): packages a provider
# extra brings that no request imports, botocore's and boto3's data for the AWS services it does not
# call, and the CLDR fields of babel's locale data that it does not read.

PROVIDERS ?= bedrock
PYTHON ?= python3.13
PYTHON_VERSION ?= 3.13
PLATFORMS ?= manylinux2014_aarch64 manylinux_2_28_aarch64
# Installed without their declared dependencies (pyproject.toml's server extra says why).
NO_DEPS := langdetect sacrebleu
# Never imported: tiktoken (and its regex) come with the openai extra for pydantic-ai's realtime models;
# pysbd's wheel ships its benchmarks and examples as top-level packages.
NEVER_IMPORTED := tiktoken tiktoken_ext regex benchmarks examples
# The AWS services the function calls: DynamoDB, Bedrock's runtime (bedrock: models), STS (credentials).
AWS_SERVICES := dynamodb bedrock-runtime sts
# What the service reads of a locale: language, territory and script names, plural rules, direction.
BABEL_KEYS := languages territories scripts variants plural_form ordinal_form character_order

PIP = $(PYTHON) -m pip install --quiet --disable-pip-version-check --no-compile --target "$(ARTIFACTS_DIR)"
REQUIREMENTS = "$(ARTIFACTS_DIR)/.pip-requirements"

build-AgentFunction:
	$(PYTHON) scripts/requirements.py server $(PROVIDERS) --except $(NO_DEPS) > $(REQUIREMENTS)
	$(PIP) $(addprefix --platform ,$(PLATFORMS)) --implementation cp --python-version $(PYTHON_VERSION) \
		--only-binary=:all: -r $(REQUIREMENTS)
	$(PYTHON) scripts/requirements.py server --only $(NO_DEPS) > $(REQUIREMENTS)
	$(PIP) --no-deps -r $(REQUIREMENTS)
	rm -f $(REQUIREMENTS)
	cp -R handlers agent_core storage service interchange langfacts "$(ARTIFACTS_DIR)/"
	rm -rf "$(ARTIFACTS_DIR)/bin"
	cd "$(ARTIFACTS_DIR)" && rm -rf $(NEVER_IMPORTED) $(addsuffix -*.dist-info,$(NEVER_IMPORTED))
	cd "$(ARTIFACTS_DIR)/botocore/data" && find . -mindepth 1 -maxdepth 1 -type d \
		$(foreach service,$(AWS_SERVICES),! -name $(service)) -exec rm -rf {} +
	cd "$(ARTIFACTS_DIR)/boto3/data" && find . -mindepth 1 -maxdepth 1 -type d ! -name dynamodb -exec rm -rf {} +
	PYTHONPATH="$(ARTIFACTS_DIR)" $(PYTHON) scripts/prune_babel.py "$(ARTIFACTS_DIR)" $(BABEL_KEYS)
	find "$(ARTIFACTS_DIR)" -name __pycache__ -type d -prune -exec rm -rf {} +
	find "$(ARTIFACTS_DIR)" \( -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' -o -name '*.h' -o -name '*.c' \) \
		-type f -delete
	$(PYTHON) -m compileall -q -j 0 --invalidation-mode unchecked-hash "$(ARTIFACTS_DIR)" > /dev/null

# The web UI (docs/deploy.md). It is not in the function's package: CloudFront serves it from the
# stack's bucket. `make web` builds web/dist/ (esbuild from package-lock.json, `npm ci` when needed;
# scripts/build_web.py); `make web-upload` builds it and uploads it to the bucket of the stack STACK
# (the WebBucketName output): first the content-hashed files of assets/, cached for a year, then
# index.html, revalidated on every load, so a page never names a file that is not there yet. Files of
# earlier builds stay, for pages opened before the upload. The gzip copies are for the local server
# only: CloudFront compresses by itself.
STACK ?= translation-agent
WEB_PYTHON ?= python3

web:
	$(WEB_PYTHON) scripts/build_web.py

web-upload: web
	@bucket=$$(aws cloudformation describe-stacks --stack-name "$(STACK)" --output text \
		--query "Stacks[0].Outputs[?OutputKey=='WebBucketName'].OutputValue") && \
	if [ -z "$$bucket" ] || [ "$$bucket" = None ]; then \
		echo "stack $(STACK) has no WebBucketName output: deploy it first (sam deploy)" >&2; exit 1; fi && \
	aws s3 sync web/dist/assets "s3://$$bucket/assets" --exclude '*.gz' \
		--cache-control 'public, max-age=31536000, immutable' && \
	aws s3 cp web/dist/index.html "s3://$$bucket/index.html" \
		--cache-control 'no-cache' --content-type 'text/html; charset=utf-8' && \
	echo "uploaded web/dist/ to s3://$$bucket/"

.PHONY: web web-upload
