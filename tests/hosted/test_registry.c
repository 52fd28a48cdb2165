/* The probe registry (bench/core/registry.def) against the probes' own declarations and the
 * options table. Linked with the hosted build's objects (every probe), not with the host unit
 * runner's units: `make unit` runs it as its own binary (mk/hosted.mk, unit-registry). */
#include "bench/core/registry.h"
#include "tests/unit/test.h"

static unsigned registry_size(void)
{
	unsigned n = 0;

	while (probe_registry[n].desc)
		n++;
	return n;
}

static void every_probe_is_complete(void)
{
	CHECK(registry_size() > 0);
	for (const struct probe_entry *e = probe_registry; e->desc; e++) {
		const struct probe_desc *d = e->desc;

		CHECK(d->name && d->name[0]);
		CHECK(d->run != 0);
		CHECK(d->what && d->what[0]);
		if (d->unprofiled)
			CHECK(d->unprofiled[0]);
		if (!d->name || !d->run || !d->what)
			printf("    incomplete probe_desc: %s\n", d->name ? d->name : "(no name)");
	}
}

/* probe_names (made from the registry lines alone) is the descriptors' names in the same order:
 * the line PROBE(id, ...) names the desc probe_<id>, whose .name must be "<id>". */
static void names_match_the_registry_lines(void)
{
	unsigned i = 0;

	for (const struct probe_entry *e = probe_registry; e->desc; e++, i++) {
		CHECK(probe_names[i] != 0);
		if (probe_names[i])
			CHECK_STR(e->desc->name, probe_names[i]);
		CHECK(probe_find(e->desc->name) == e->desc);
	}
	CHECK(probe_names[i] == 0);
	CHECK(probe_find("no_such_probe") == 0);
}

static void names_are_unique(void)
{
	for (const struct probe_entry *a = probe_registry; a->desc; a++)
		for (const struct probe_entry *b = a + 1; b->desc; b++)
			if (strcmp(a->desc->name, b->desc->name) == 0) {
				printf("    probe '%s' registered twice\n", a->desc->name);
				CHECK(0);
			}
}

/* The default probes= list is exactly the registry's DEFAULT entries, in registry order. */
static void default_list_is_the_registry_flags(void)
{
	char want[CONFIG_VALUE_MAX] = "";
	struct config c;

	for (const struct probe_entry *e = probe_registry; e->desc; e++) {
		if (!e->in_default)
			continue;
		if (want[0])
			strcat(want, ",");
		strcat(want, e->desc->name);
	}
	CHECK_STR(probe_default_list, want);
	config_defaults(&c);
	CHECK_STR(c.probes, want);
}

/* Each probe's .options names options of the table, each once. */
static void probe_options_exist(void)
{
	for (const struct probe_entry *e = probe_registry; e->desc; e++) {
		const char *s = e->desc->options;

		if (!s)
			continue;
		CHECK(s[0] != 0);
		while (*s) {
			char key[CONFIG_KEY_MAX];
			size_t n = config_item_len(s);

			CHECK(n > 0 && n < sizeof(key));
			snprintf(key, sizeof(key), "%.*s", (int)n, s);
			if (!config_option_exists(key)) {
				printf("    probe %s lists unknown option '%s'\n", e->desc->name, key);
				CHECK(0);
			}
			if (n > 0 && n < sizeof(key))
				CHECK(!config_list_has(s + n + (s[n] == ','), key));
			s += n + (s[n] == ',');
		}
	}
}

static void count_warning(const char *message, void *ctx)
{
	(void)message;
	(*(unsigned *)ctx)++;
}

/* Every default is a value its option accepts, with the real probe names as the known list. */
static void defaults_are_accepted(void)
{
	unsigned warnings = 0;
	struct config c;
	struct config_parser p = { .cfg = &c, .known_probes = probe_names, .warn = count_warning, .warn_ctx = &warnings };

	config_defaults(&c);
	for (unsigned i = 0; i < config_option_count(); i++) {
		if (!config_set(&p, config_option_key(i), config_option_default(i), "test"))
			printf("    default of %s refused\n", config_option_key(i));
	}
	CHECK_EQ_U64(warnings, 0);
}

TEST_SUITE(registry) = {
	{ "every_probe_is_complete", every_probe_is_complete },
	{ "names_match_the_registry_lines", names_match_the_registry_lines },
	{ "names_are_unique", names_are_unique },
	{ "default_list_is_the_registry_flags", default_list_is_the_registry_flags },
	{ "probe_options_exist", probe_options_exist },
	{ "defaults_are_accepted", defaults_are_accepted },
	{ 0, 0 },
};
