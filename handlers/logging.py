"""The Powertools logger shared by the handlers (structured JSON, Lambda context injected)."""

from aws_lambda_powertools import Logger

logger = Logger(service="translation-agent")
