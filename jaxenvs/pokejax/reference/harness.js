#!/usr/bin/env node
/**
 * The Pokémon Showdown reference for PokeJAX, driven over JSON lines.
 *
 * Reads one JSON object per line on stdin, answers one JSON object per line on stdout:
 * `{"ok": true, ...}` or `{"ok": false, "error": "..."}`. The Python side is
 * `jaxenvs/pokejax/reference/driver.py`; the commands are the `handlers` at the bottom.
 *
 * Battles use the Gen 5 LCG (a seed of four 16-bit words). Every call into the battle's PRNG is
 * recorded (method, arguments, result, the raw 32-bit LCG outputs it consumed, optionally the
 * caller), so a port can find the first call where it diverges. Reports carry the whole state a
 * port must reproduce: per Pokémon HP, status and its counters, boosts, volatiles with their
 * counters, PP, active and fainted flags, stats; per side the legal choices.
 */
'use strict';

const readline = require('readline');
const path = require('path');

let sim;
try {
	sim = require('pokemon-showdown');
} catch (e) {
	process.stdout.write(JSON.stringify({
		ok: false,
		error: 'pokemon-showdown is not installed: run ' +
			`\`npm ci --prefix ${path.relative(process.cwd(), __dirname) || '.'}\` (${e.message})`,
	}) + '\n');
	process.exit(2);
}
const {Battle, Dex, PRNG, Pokemon, Teams, TeamValidator, toID} = sim;

// ---------------------------------------------------------------------------------------------
// JSON-safe snapshots of Showdown objects

/** A Pokémon as a stable reference: "p1:3" = side p1, team index 3 (order at battle start). */
function pokemonRef(p) {
	return `${p.side.id}:${p.teamIndex}`;
}

/** Effect states and volatiles hold Pokémon, effects and sides: turn them into plain data. */
function plain(value, depth = 0) {
	if (value === null || value === undefined) return null;
	const t = typeof value;
	if (t === 'number' || t === 'string' || t === 'boolean') return value;
	if (t === 'function') return undefined;
	if (value instanceof Pokemon) return pokemonRef(value);
	if (depth > 4) return '<deep>';
	if (Array.isArray(value)) return value.map(v => plain(v, depth + 1));
	if (value.effectType && value.id !== undefined && value.constructor !== Object) return value.id;
	if (value.constructor && value.constructor.name === 'Side') return value.id;
	const out = {};
	for (const key of Object.keys(value)) {
		const v = plain(value[key], depth + 1);
		if (v !== undefined) out[key] = v;
	}
	return out;
}

function pokemonState(p) {
	const volatiles = {};
	for (const id of Object.keys(p.volatiles)) volatiles[id] = plain(p.volatiles[id]);
	return {
		team_index: p.teamIndex,
		species: p.species.id,
		base_species: p.baseSpecies.id,
		level: p.level,
		hp: p.hp,
		maxhp: p.maxhp,
		status: p.status,
		status_state: p.status ? plain(p.statusState) : {},
		boosts: {...p.boosts},
		volatiles,
		moves: p.moveSlots.map(m => ({id: m.id, pp: m.pp, maxpp: m.maxpp, disabled: !!m.disabled})),
		active: p.isActive,
		fainted: p.fainted,
		types: p.getTypes(),
		stored_stats: {...p.storedStats},
		modified_stats: p.modifiedStats ? {...p.modifiedStats} : null,
		transformed: p.transformed,
		last_move: p.lastMove ? p.lastMove.id : null,
	};
}

/** The choice strings Showdown accepts from `side` now, in a fixed order (moves, then switches). */
function legalChoices(side) {
	const req = side.activeRequest;
	if (!req || req.wait) return [];
	const out = [];
	const switches = [];
	for (let i = side.active.length; i < side.pokemon.length; i++) {
		if (!side.pokemon[i].fainted) switches.push(`switch ${i + 1}`);
	}
	if (req.forceSwitch) return switches;
	const active = req.active[0];
	active.moves.forEach((m, i) => {
		if (!m.disabled) out.push(`move ${i + 1}`);
	});
	if (!active.trapped) out.push(...switches);
	return out;
}

function requestSummary(side) {
	const req = side.activeRequest;
	if (!req) return null;
	if (req.wait) return {kind: 'wait'};
	if (req.forceSwitch) return {kind: 'switch'};
	const active = req.active[0];
	return {
		kind: 'move',
		moves: active.moves.map(m => ({
			id: m.id, pp: m.pp ?? null, maxpp: m.maxpp ?? null, disabled: !!m.disabled,
		})),
		trapped: !!active.trapped,
	};
}

/**
 * Protocol lines since the last report; of each `|split|` pair only the exact (owner's) line,
 * and no `|t:|` timestamps (the only part of the log that is not a function of the inputs).
 */
function newLogLines(entry) {
	const log = entry.battle.log;
	const out = [];
	let i = entry.logPos;
	while (i < log.length) {
		if (log[i].startsWith('|split|')) {
			out.push(log[i + 1]);
			i += 3;
		} else {
			if (!log[i].startsWith('|t:|')) out.push(log[i]);
			i++;
		}
	}
	entry.logPos = log.length;
	return out;
}

function battleState(battle) {
	return {
		turn: battle.turn,
		ended: battle.ended,
		winner: battle.ended ? battle.winner : null,
		request_state: battle.requestState,
		// what the gen1 mod carries between turns outside the Pokémon (Counter, PP deduction)
		last_damage: battle.lastDamage,
		sides: battle.sides.map(side => ({
			id: side.id,
			pokemon_left: side.pokemonLeft,
			last_move: side.lastMove ? side.lastMove.id : null,
			last_selected_move: side.lastSelectedMove || null,
			last_selected_move_slot: side.lastSelectedMoveSlot ?? null,
			side_conditions: plain(side.sideConditions),
			request: requestSummary(side),
			legal: legalChoices(side),
			pokemon: side.pokemon.map(pokemonState),
		})),
	};
}

// ---------------------------------------------------------------------------------------------
// PRNG recording

const PRNG_METHODS = ['random', 'randomChance', 'sample', 'shuffle'];
const SKIP_FRAMES = /harness\.js|sim\/prng\.js|Battle\.(random|randomChance|sample) /;

/** Where the call came from: up to three frames outside the PRNG plumbing, "fn (file:line)". */
function callerFrames() {
	const frames = new Error().stack.split('\n').slice(1).map(s => s.trim().replace(/^at /, ''));
	return frames.filter(f => !SKIP_FRAMES.test(f)).slice(0, 3)
		.map(f => f.replace(/\(.*node_modules\/pokemon-showdown\/dist\//, '(').replace(/:\d+\)$/, ')'));
}

/**
 * Wraps `prng`'s methods so each outermost call appends {fn, args, result, raw[, caller]} to
 * `calls`; `raw` lists the LCG outputs it consumed (a nested call, e.g. `sample` -> `random`,
 * is part of its caller's record). A bare `next()` outside any method is recorded as fn "next".
 */
function recordPrng(prng, calls, withCallers) {
	let current = null;
	const rng = prng.rng;
	const next = rng.next.bind(rng);
	rng.next = function () {
		const r = next();
		if (current) current.raw.push(r);
		else calls.push({fn: 'next', args: [], result: r, raw: [r]});
		return r;
	};
	for (const fn of PRNG_METHODS) {
		const orig = prng[fn].bind(prng);
		prng[fn] = function (...args) {
			if (current) return orig(...args);
			const rec = {fn, args: [], result: null, raw: []};
			if (withCallers) rec.caller = callerFrames();
			current = rec;
			let before;
			if (fn === 'shuffle') {
				const [items, start = 0, end = items.length] = args;
				rec.args = [items.length, start, end];
				before = items.slice();
			} else if (fn === 'sample') {
				rec.args = [args[0].length];
			} else {
				rec.args = args.filter(a => a !== undefined);
			}
			let result;
			try {
				result = orig(...args);
			} finally {
				current = null;
			}
			if (fn === 'shuffle') {
				// result: the new order as indices into the list before the call
				const used = new Set();
				rec.result = args[0].map(item => {
					for (let k = 0; k < before.length; k++) {
						if (before[k] === item && !used.has(k)) { used.add(k); return k; }
					}
					return -1;
				});
			} else if (fn === 'sample') {
				rec.result = Math.floor(rec.raw[0] * args[0].length / 2 ** 32);
			} else {
				rec.result = result;
			}
			calls.push(rec);
			return result;
		};
	}
}

// ---------------------------------------------------------------------------------------------
// Battles

const battles = new Map();
let nextBattleId = 1;

function checkSeed(seed) {
	if (!Array.isArray(seed) || seed.length !== 4 ||
		!seed.every(w => Number.isInteger(w) && w >= 0 && w < 65536)) {
		throw new Error(`seed must be four integers in [0, 65536), got ${JSON.stringify(seed)}`);
	}
	return seed;
}

function createBattle(msg) {
	const prng = new PRNG(checkSeed(msg.seed));
	const calls = [];
	if (msg.record_rng !== false) recordPrng(prng, calls, !!msg.callers);
	const battle = new Battle({formatid: msg.format || 'gen1randombattle', prng});
	const entry = {battle, calls, logPos: 0};
	for (const side of ['p1', 'p2']) {
		const team = msg[side];
		if (typeof team !== 'string') throw new Error(`${side}: a packed team string is required`);
		battle.setPlayer(side, {name: side, team});
	}
	for (const side of battle.sides) side.pokemon.forEach((p, i) => { p.teamIndex = i; });
	return entry;
}

function report(entry) {
	const out = battleState(entry.battle);
	out.log = newLogLines(entry);
	out.rng = entry.calls.splice(0, entry.calls.length);
	return out;
}

function applyChoices(battle, choices) {
	for (const side of ['p1', 'p2']) {
		const choice = choices[side];
		if (choice === undefined || choice === null) continue;
		if (!battle.choose(side, choice)) {
			const error = battle.getSide(side).choice.error;
			// withdraw the other side's pending choice too: the step is refused whole
			for (const s of battle.sides) s.clearChoice();
			throw new Error(`${side} choice ${JSON.stringify(choice)} rejected: ${error}`);
		}
	}
}

function getBattle(msg) {
	const entry = battles.get(msg.battle);
	if (!entry) throw new Error(`no battle ${msg.battle}`);
	return entry;
}

/**
 * Plays one battle with uniformly random legal choices drawn from a Gen 5 LCG seeded with
 * `policy_seed` (p1 first, then p2, each from its own legal list). With `record`, returns each
 * decision's choices and the report after it.
 */
function playRandom(msg) {
	const entry = createBattle(msg);
	const battle = entry.battle;
	const policy = new PRNG(checkSeed(msg.policy_seed));
	const maxSteps = msg.max_steps || 10000;
	const steps = [];
	const first = msg.record ? report(entry) : null;
	let n = 0;
	let nChoices = 0;
	while (!battle.ended && n < maxSteps) {
		const choices = {};
		for (const side of battle.sides) {
			const legal = legalChoices(side);
			if (legal.length) choices[side.id] = legal[policy.random(legal.length)];
		}
		applyChoices(battle, choices);
		n++;
		nChoices += Object.keys(choices).length;
		if (msg.record) steps.push({choices, report: report(entry)});
		else entry.calls.length = 0;
	}
	const out = {initial: first, steps, n_steps: n, n_choices: nChoices, turn: battle.turn,
		ended: battle.ended, winner: battle.ended ? battle.winner : null};
	battle.destroy();
	return out;
}

// ---------------------------------------------------------------------------------------------
// Teams and data

/** A set as the battle will use it: missing EVs are 0 and missing IVs 31 (as `new Pokemon`). */
function setJSON(set) {
	return {
		species: toID(set.species), level: set.level || 100, moves: set.moves.map(toID),
		evs: {hp: 0, atk: 0, def: 0, spa: 0, spd: 0, spe: 0, ...set.evs},
		ivs: {hp: 31, atk: 31, def: 31, spa: 31, spd: 31, spe: 31, ...set.ivs},
	};
}

function generateTeams(msg) {
	const format = msg.format || 'gen1randombattle';
	return msg.seeds.map(seed => {
		const team = Teams.generate(format, {seed: checkSeed(seed)});
		return {packed: Teams.pack(team), sets: team.map(setJSON)};
	});
}

function pick(obj, keys) {
	const out = {};
	for (const k of keys) if (obj[k] !== undefined) out[k] = plain(obj[k]);
	return out;
}

const MOVE_KEYS = ['num', 'name', 'type', 'category', 'basePower', 'accuracy', 'pp', 'noPPBoosts',
	'priority', 'target', 'flags', 'secondary', 'secondaries', 'self', 'boosts', 'status',
	'volatileStatus', 'sideCondition', 'multihit', 'multiaccuracy', 'drain', 'recoil', 'heal',
	'ohko', 'critRatio', 'willCrit', 'selfSwitch', 'selfdestruct', 'damage', 'forceSwitch',
	'ignoreImmunity', 'breaksProtect', 'isNonstandard', 'hasCrashDamage', 'struggleRecoil',
	'noDamageVariance', 'stallingMove', 'alwaysHit', 'selfBoost', 'pseudoWeather', 'weather',
	'terrain', 'forceSTAB', 'thawsTarget', 'sleepUsable', 'tracksTarget', 'smartTarget',
	'mindBlownRecoil', 'ignoreEvasion', 'ignoreAccuracy', 'ignoreDefensive', 'ignoreOffensive',
	'overrideOffensiveStat', 'overrideDefensiveStat', 'overrideOffensivePokemon',
	'overrideDefensivePokemon'];
const CALLBACK = /^(on|before|after|damageCallback|basePowerCallback|priorityChargeCallback)/;

/** A move as data: the fields above, plus the names of the callbacks that carry its logic. */
function moveData(m) {
	const out = pick(m, MOVE_KEYS);
	out.id = m.id;
	const callbacks = obj => Object.keys(obj).filter(k => typeof obj[k] === 'function').sort();
	out.callbacks = callbacks(m).filter(k => CALLBACK.test(k));
	if (m.condition) {
		out.condition = pick(m.condition, ['duration', 'noCopy']);
		out.condition.callbacks = callbacks(m.condition);
	}
	return out;
}

/** Gen `gen` tables as Showdown's mod sees them after inheritance. */
function dumpData(msg) {
	const dex = Dex.mod(msg.mod || 'gen1');
	const gen = dex.gen;
	const species = dex.species.all()
		.filter(s => s.num >= 1 && s.gen <= gen && !s.isNonstandard && s.name === s.baseSpecies)
		.sort((a, b) => a.num - b.num)
		.map(s => ({num: s.num, id: s.id, name: s.name, types: s.types, baseStats: s.baseStats,
			prevo: toID(s.prevo) || null, evos: s.evos.map(toID), weighthg: s.weighthg}));
	const moves = dex.moves.all()
		.filter(m => m.num >= 1 && m.gen <= gen && !m.isNonstandard)
		.sort((a, b) => a.num - b.num)
		.map(moveData);
	const types = dex.types.names().filter(t => dex.types.get(t).exists);
	// effectiveness[attacking][defending]: Showdown's damageTaken codes turned into multipliers
	const typechart = {};
	for (const atk of types) {
		typechart[atk] = {};
		for (const def of types) {
			const code = dex.types.get(def).damageTaken[atk];
			typechart[atk][def] = code === 3 ? 0 : code === 1 ? 2 : code === 2 ? 0.5 : 1;
		}
	}
	// learnable[species] = moves that the format's validator accepts for it alone at level
	// 100, its bans aside (learnable, and not only from a Japan-only event);
	// learn_level[species][move] = the lowest level at which it accepts the move, and
	// min_level[species] the lowest at which it accepts the species itself: both where above
	// 1, found by bisection (legal at a level, legal above it)
	const validator = TeamValidator.get(msg.validator_format || `gen${gen}ubers`);
	const lowest = legal => {
		let lo = 1, hi = 100;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (legal(mid)) hi = mid; else lo = mid + 1;
		}
		return lo;
	};
	const learnable = {}, learn_level = {}, min_level = {}, incompatible = {};
	for (const s of species) {
		const sp = validator.dex.species.get(s.id);
		// the whole validator on the move alone at level 100 (it also refuses moves that only
		// Japan-only events gave); a problem without the move's name is the species'
		const problems = (move, L, other) => validator.validateSet({
			species: s.name, name: s.name, moves: other ? [move.id, other] : [move.id], level: L,
			ability: 'No Ability', evs: {hp: 1, atk: 0, def: 0, spa: 0, spd: 0, spe: 0}, item: '',
		}, {}) || [];
		learnable[s.id] = [];
		const levels = {};
		for (const m of moves) {
			const move = validator.dex.moves.get(m.id);
			if (validator.checkCanLearn(move, sp)
				|| problems(move, 100).some(p => !p.includes('is banned by'))) continue;
			learnable[s.id].push(m.id);
			const level = lowest(L => !validator.checkCanLearn(move, sp, undefined, {level: L}));
			if (level > 1) levels[m.id] = level;
		}
		if (Object.keys(levels).length) learn_level[s.id] = levels;
		const probe = learnable[s.id].map(id => validator.dex.moves.get(id))
			.find(move => !problems(move, 100).length);
		const level = lowest(L => !problems(probe, L).some(p => !p.includes(probe.name)));
		if (level > 1) min_level[s.id] = level;
		// incompatible[species] = pairs of its learnable moves that the validator refuses
		// together at level 100 (each is learned at a stage of the evolution line that rules
		// out the other), bans aside
		const pairs = [];
		learnable[s.id].forEach((a, i) => learnable[s.id].slice(i + 1).forEach(b => {
			if (problems(validator.dex.moves.get(a), 100, b).some(p => !p.includes('is banned by')))
				pairs.push([a, b]);
		}));
		if (pairs.length) incompatible[s.id] = pairs;
	}
	// the random-battle format's rule table: its clauses are part of the rules a port implements
	const format = Dex.formats.get(msg.format || `gen${gen}randombattle`);
	const rules = [...Dex.formats.getRuleTable(format).keys()].sort();
	return {gen, species, moves, types, typechart, learnable, learn_level, min_level, incompatible,
		validator_format: validator.format.id,
		format: {id: format.id, name: format.name, rules}};
}

function validate(msg) {
	const validator = TeamValidator.get(msg.format);
	const team = typeof msg.team === 'string' ? Teams.import(msg.team) : msg.team;
	if (!team) throw new Error('could not parse the team');
	// validateTeam fills what the team leaves out (EVs, IVs, level) in the sets it checks
	return {problems: validator.validateTeam(team) || [], sets: team.map(setJSON)};
}

function prngStream(msg) {
	const prng = new PRNG(checkSeed(msg.seed));
	return {results: msg.calls.map(([fn, ...args]) => {
		if (fn === 'next') return prng.rng.next();
		if (fn === 'sample') return prng.sample([...Array(args[0]).keys()]);
		if (fn === 'shuffle') {
			const items = [...Array(args[0]).keys()];
			prng.shuffle(items, ...args.slice(1));
			return items;
		}
		return prng[fn](...args);
	})};
}

/**
 * Damage of single moves from Showdown's own `actions.getDamage`, for every damage roll.
 *
 * For each case: the attacker (`p1`/`p2`, its active Pokémon) uses `move` on the other side's
 * active one, after setting the attacker's and defender's modified (boosted) stats to the given
 * values and adding Reflect / Light Screen / Focus Energy when asked. The battle PRNG is replaced
 * during the call: the crit roll answers `crit`, the damage roll answers each of 217..255 in turn.
 * Returns the damages (null where getDamage gave no number: immunity, no base power) and the
 * crit-chance numerator getDamage asked for (null if it asked none).
 */
function damage(msg) {
	const entry = createBattle({...msg, record_rng: false});
	const battle = entry.battle;
	const out = msg.cases.map(c => {
		const source = battle.getSide(c.attacker).active[0];
		const target = source.side.foe.active[0];
		for (const [p, stats] of [[source, c.attacker_stats], [target, c.defender_stats]]) {
			if (stats) Object.assign(p.modifiedStats, stats);
		}
		for (const v of c.defender_volatiles || []) target.volatiles[v] = battle.initEffectState({id: v});
		for (const v of c.attacker_volatiles || []) source.volatiles[v] = battle.initEffectState({id: v});
		const real = battle.prng;
		let critNumerator = null;
		const rolls = [];
		try {
			for (let roll = 217; roll < 256; roll++) {
				battle.prng = {
					random: () => roll,
					randomChance: (a) => { critNumerator = a; return !!c.crit; },
					sample: () => { throw new Error('sample during getDamage'); },
					shuffle: () => { throw new Error('shuffle during getDamage'); },
				};
				const move = battle.dex.getActiveMove(c.move);
				const d = battle.actions.getDamage(source, target, move, true);
				rolls.push(typeof d === 'number' ? d : null);
			}
		} finally {
			battle.prng = real;
			for (const v of c.defender_volatiles || []) delete target.volatiles[v];
			for (const v of c.attacker_volatiles || []) delete source.volatiles[v];
		}
		return {
			damage: rolls, crit_numerator: critNumerator,
			level: source.level, attacker_types: source.getTypes(), defender_types: target.getTypes(),
			attacker: {...source.modifiedStats}, attacker_base: {...source.baseStoredStats},
			defender: {...target.modifiedStats}, defender_base: {...target.baseStoredStats},
			attacker_species: source.species.id,
		};
	});
	battle.destroy();
	return {cases: out};
}

/** The choice strings a port's action space covers: 4 moves and switches to party slots 1-6. */
const CANDIDATE_CHOICES = ['move 1', 'move 2', 'move 3', 'move 4',
	'switch 1', 'switch 2', 'switch 3', 'switch 4', 'switch 5', 'switch 6'];

/**
 * Which candidate choices Showdown itself accepts now, per side: each is tried with
 * `side.choose` and withdrawn with `side.clearChoice` (nothing is committed). `rng_touched`
 * says whether trying them drew from the battle PRNG (it must not).
 */
function checkChoices(msg) {
	const entry = getBattle(msg);
	const battle = entry.battle;
	const seedBefore = battle.prng.getSeed();
	const callsBefore = entry.calls.length;
	const accepted = {};
	for (const side of battle.sides) {
		accepted[side.id] = [];
		if (!side.activeRequest || side.activeRequest.wait) continue;
		for (const choice of CANDIDATE_CHOICES) {
			side.clearChoice();
			if (side.choose(choice)) accepted[side.id].push(choice);
		}
		side.clearChoice();
	}
	const touched = battle.prng.getSeed() !== seedBefore || entry.calls.length !== callsBefore;
	return {accepted, rng_touched: touched};
}

const handlers = {
	new_battle(msg) {
		const entry = createBattle(msg);
		const id = nextBattleId++;
		battles.set(id, entry);
		return {battle: id, report: report(entry)};
	},
	choose(msg) {
		const entry = getBattle(msg);
		applyChoices(entry.battle, msg);
		return {report: report(entry)};
	},
	state(msg) {
		return {state: battleState(getBattle(msg).battle)};
	},
	close(msg) {
		const entry = getBattle(msg);
		entry.battle.destroy();
		battles.delete(msg.battle);
		return {};
	},
	play_random: playRandom,
	check_choices: checkChoices,
	generate_teams(msg) { return {teams: generateTeams(msg)}; },
	dump_data: dumpData,
	format_rules(msg) {
		// a format's rule table (rule ids, complex bans) and its other fields, as text
		const format = Dex.formats.get(msg.format);
		const table = Dex.formats.getRuleTable(format);
		const fields = {};
		for (const [k, v] of Object.entries(format)) {
			if (k !== 'ruleTable') fields[k] = typeof v === 'function' ? v.toString() : JSON.stringify(v);
		}
		return {rules: [...table.keys()].sort(), complex_bans: table.complexBans.map(b => b[0]),
			fields};
	},
	validate,
	import_team(msg) {
		const team = Teams.import(msg.team);
		return {sets: team ? team.map(setJSON) : null};
	},
	prng_stream: prngStream,
	type_matchups(msg) {
		// [immune, effectiveness] per attacking and defending type, from the mod's own functions
		const dex = Dex.mod(msg.mod || 'gen1');
		const types = dex.types.names();
		const out = {};
		for (const a of types) {
			out[a] = {};
			for (const d of types) out[a][d] = [!dex.getImmunity(a, d), dex.getEffectiveness(a, d)];
		}
		return {matchups: out};
	},
	damage,
	version() {
		return {showdown: require('pokemon-showdown/package.json').version, node: process.version};
	},
};

const rl = readline.createInterface({input: process.stdin, terminal: false});
rl.on('line', line => {
	if (!line.trim()) return;
	let out;
	try {
		const msg = JSON.parse(line);
		const handler = handlers[msg.cmd];
		if (!handler) throw new Error(`unknown command ${JSON.stringify(msg.cmd)}`);
		out = {ok: true, ...handler(msg)};
	} catch (e) {
		out = {ok: false, error: e.message, stack: e.stack};
	}
	process.stdout.write(JSON.stringify(out) + '\n');
});
