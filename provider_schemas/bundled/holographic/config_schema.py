"""Holographic settings: ``config.yaml`` section ``plugins.hermes-memory-store``.

Pure data, read by the panel's loader (or checked by its static evaluator); never imported as a
package. The plugin reads this section with a plain YAML load: no ``${VAR}`` expansion, no env
variables, no secrets.
"""

from __future__ import annotations

from provider_schemas.config_schema import (
    FORMAT_PATH,
    KIND_BOOL,
    KIND_NUMBER,
    KIND_TEXT,
    STORAGE_CONFIG_YAML,
    ProviderConfigSchema,
    ProviderField,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="holographic",
    label="Holographic",
    storage=STORAGE_CONFIG_YAML,
    storage_path="plugins.hermes-memory-store",
    docs_url="",
    fields=(
        ProviderField(
            key="db_path",
            label="Database path",
            kind=KIND_TEXT,
            format=FORMAT_PATH,
            description="Where the fact database file lives (default: memory_store.db in the agent's home).",
            placeholder="$HERMES_HOME/memory_store.db",
            info=(
                "A file path on the machine running the agent. $HERMES_HOME (or ${HERMES_HOME}) is "
                "replaced by the agent's home folder and ~ by your home folder. Pointing it at a new "
                "path starts an empty store; the old file is left where it is."
            ),
            inline=True,
            group="Storage",
        ),
        ProviderField(
            key="auto_extract",
            label="Auto-extract facts",
            kind=KIND_BOOL,
            default="false",
            description="Pick out facts automatically when a conversation ends.",
            info=(
                "Uses simple text patterns to spot facts such as preferences and decisions. The panel "
                'stores a real true/false value: a stored text "false" would switch extraction on.'
            ),
            inline=True,
            group="Extraction",
        ),
        ProviderField(
            key="default_trust",
            label="Default trust",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=1,
            default="0.5",
            description="Trust score given to a newly stored fact (0 to 1).",
            info="Facts gain or lose trust as they are confirmed or contradicted later.",
            group="Retrieval",
        ),
        ProviderField(
            key="min_trust_threshold",
            label="Minimum trust",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=1,
            default="0.3",
            description="Facts trusted less than this are left out of recall (0 to 1).",
            group="Retrieval",
        ),
        ProviderField(
            key="hrr_dim",
            label="HRR dimensions",
            kind=KIND_NUMBER,
            integer=True,
            minimum=1,
            maximum=65536,
            unit="dimensions",
            default="1024",
            description="Size of the vectors used for compositional search (a whole number).",
            info=(
                "Larger vectors tell more facts apart but use more memory and time. Changing it "
                "affects how existing facts are matched, so pick a value once."
            ),
            group="Retrieval",
        ),
        ProviderField(
            key="hrr_weight",
            label="HRR weight",
            kind=KIND_NUMBER,
            minimum=0,
            maximum=1,
            default="0.3",
            description="How much compositional search counts against keyword search (0 to 1).",
            info="Compositional search needs numpy on the agent's machine; without it this weight is 0.",
            group="Retrieval",
        ),
        ProviderField(
            key="temporal_decay_half_life",
            label="Decay half-life (days)",
            kind=KIND_NUMBER,
            integer=True,
            minimum=0,
            maximum=36500,
            unit="days",
            default="0",
            description="Older facts count half as much after this many days; 0 turns ageing off.",
            info="A whole number of days.",
            group="Retrieval",
        ),
    ),
)
