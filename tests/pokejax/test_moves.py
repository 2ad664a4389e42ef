"""L3 per move family: battles of custom teams built around each family of special moves,
random-vs-random in Showdown 0.11.11 and replayed in the engine (``replay.replay_many``),
equal at every decision on every compared state field and the PRNG stream (no tolerance).

Each family's battles must also show the mechanic in Showdown's log (a freeze and a thaw, a
Rest, a confusion self-hit, ...), so that a test cannot pass without exercising it.
"""

import numpy as np
import pytest

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.reference import replay

#: family -> (p1 team, p2 team, Showdown log fragments that must all occur). Teams are
#: ``species:move,move,...:level`` separated by ``;``.
FAMILIES = {
    "freeze": (
        "mew:icebeam,blizzard,flamethrower,ember:100;jynx:blizzard,icepunch,lovelykiss:80",
        "snorlax:tackle,thunder:60;slowbro:tackle,firepunch:60;chansey:tackle,thunder:60;"
        "muk:tackle:60;rhydon:tackle:60;lapras:tackle,icebeam:60",
        ["|frz", "-curestatus"]),
    "sleep": (
        "parasect:spore,slash:80;jynx:lovelykiss,psychic,rest:80;gengar:hypnosis,nightshade:80;"
        "wigglytuff:sing,bodyslam,rest:80",
        "snorlax:bodyslam,rest,hyperbeam:80;vileplume:sleeppowder,megadrain:80;"
        "starmie:recover,surf,rest:80;tauros:hyperbeam,bodyslam:80",
        ["|slp|[from] move: Rest", "|cant|", "Sleep Clause Mod activated", "-curestatus"]),
    "confusion": (
        "gengar:confuseray,nightshade:80;golbat:supersonic,confuseray,wingattack:80;"
        "venomoth:psybeam,confusion:80",
        "tauros:bodyslam,earthquake:80;machamp:submission,substitute:80;"
        "kangaskhan:bodyslam,substitute:80",
        ["|-start|", "confusion", "[from] confusion", "|-end|"]),
    "flinch": (
        "hitmonlee:rollingkick,lowkick,stomp:90;persian:bite,headbutt:90;"
        "raticate:hyperfang,bodyslam:90",
        "dodrio:hyperbeam,drillpeck:70;golem:hyperbeam,earthquake:70;onix:stomp,rockslide:70",
        ["|cant|", "flinch", "-mustrecharge"]),
    "multihit": (
        "beedrill:twineedle,pinmissile:90;nidoking:doublekick,substitute:90;"
        "cloyster:spikecannon,blizzard:90;marowak:bonemerang,bonemerang:90",
        "clefable:doubleslap,cometpunch:80;fearow:furyattack,mirrormove:80;"
        "exeggutor:barrage,substitute:80",
        ["-hitcount", "Substitute"]),
    "crash": (
        "hitmonlee:highjumpkick,jumpkick:70;primeape:highjumpkick,jumpkick,substitute:70",
        "gengar:nightshade,confuseray:80;haunter:nightshade,substitute:80",
        ["-immune"]),
    "counter": (
        "chansey:counter,seismictoss,softboiled:80;hitmonlee:counter,highjumpkick:80;"
        "snorlax:bodyslam,counter,selfdestruct:80",
        "tauros:bodyslam,hyperbeam,counter:80;machamp:submission,counter,lowkick:80;"
        "persian:slash,counter,substitute:80",
        ["|Counter|", "-fail"]),
    "substitute": (
        "chansey:substitute,seismictoss,thunderwave:80;jynx:substitute,lovelykiss,psychic:80;"
        "golem:explosion,substitute,earthquake:70",
        "tauros:substitute,hyperbeam,doubleedge:80;alakazam:substitute,psychic,thunderwave:80;"
        "venusaur:substitute,megadrain,sleeppowder:80",
        ["-start|", "Substitute", "-end", "-activate"]),
    "two_turn": (
        "fearow:skyattack,drillpeck:80;venusaur:solarbeam,sleeppowder:80;"
        "wartortle:skullbash,surf:80;pidgeot:razorwind,skyattack:80",
        "moltres:skyattack,agility:80;exeggutor:solarbeam,hypnosis:80;"
        "aerodactyl:skyattack,hyperbeam:80",
        ["-prepare"]),
    "copy": (
        "ditto:transform:90;pidgeot:mirrormove,skyattack,doubleedge:80;"
        "mrmime:mimic,psychic,substitute:80",
        "spearow:mirrormove,drillpeck:80;clefable:mimic,bodyslam,counter:80;"
        "mew:transform,psychic,softboiled:80;tauros:bodyslam,blizzard:80",
        ["-transform", "|Mirror Move|", "|Mimic|"]),
    "conversion": (
        "porygon:conversion,triattack,thunderbolt:90;porygon:conversion,psychic,icebeam:90",
        "gengar:nightshade,hypnosis:80;jolteon:thunderbolt,pinmissile:80;"
        "exeggutor:psychic,megadrain:80;ditto:transform:90",
        ["typechange", "[from] move: Conversion", "-transform"]),
    "disable": (
        "gengar:disable,nightshade,hypnosis:80;alakazam:disable,psychic,recover:80;"
        "hypno:disable,psychic,substitute:80",
        "tauros:bodyslam,hyperbeam,earthquake:80;snorlax:bodyslam,rest:80;"
        "pidgeot:skyattack,mirrormove:80;golem:earthquake:80",
        ["|-start|", "|Disable|Earthquake", "|-end|", "-fail"]),
    "rage": (
        "primeape:rage,lowkick:80;kangaskhan:rage,bodyslam:80;electrode:explosion,rage:80;"
        "gengar:disable,nightshade:80;pidgeot:mirrormove,wingattack:80",
        "tauros:rage,bodyslam:80;jolteon:thunderbolt,doublekick,substitute:80;"
        "chansey:minimize,doubleteam,seismictoss:80;golem:explosion,rage,sandattack:80",
        ["|Rage|", "|-boost|", "[from] Rage", "|Explosion|", "evasion", "|Mirror Move|"]),
    "stat_volatile": (
        "clefable:defensecurl,minimize,bodyslam:80;meowth:payday,defensecurl:90;"
        "chansey:minimize,softboiled,seismictoss:80",
        "snorlax:defensecurl,bodyslam:80;persian:payday,minimize:80;"
        "gengar:nightshade,minimize:80",
        ["|Defense Curl|", "|Minimize|", "|Pay Day|", "|-fail|"]),
    "no_effect": (
        "magikarp:splash,tackle:90;abra:teleport,psychic:90;persian:roar,slash:80;"
        "pidgeot:whirlwind,wingattack:80",
        "arcanine:roar,flamethrower:80;butterfree:whirlwind,psybeam:80;"
        "kadabra:teleport,psychic:80;gyarados:splash,hydropump:70",
        ["|-nothing", "|Teleport|", "|Roar|", "|Whirlwind|", "|-miss|"]),
    "psywave": (
        "alakazam:psywave,recover:100;hypno:psywave,substitute:60;drowzee:psywave:1",
        "starmie:psywave,recover:80;gengar:psywave,substitute:90;mrmime:psywave,counter:40",
        ["|Psywave|", "Substitute", "softlocks"]),
    "mist_dreameater": (
        "articuno:mist,icebeam,agility:80;hypno:dreameater,hypnosis,substitute:80;"
        "gengar:dreameater,hypnosis,nightshade:80",
        "jynx:lovelykiss,dreameater,mist:80;cloyster:mist,aurorabeam,supersonic:80;"
        "arbok:glare,screech,acid:80;persian:growl,leer,bubblebeam:80",
        ["move: Mist", "|Dream Eater|", "-immune", "[from] drain"]),
    "toxic_leechseed": (
        "venusaur:leechseed,toxic,rest:80;tangela:leechseed,toxic,growth:80;"
        "muk:toxic,rest,sludge:80;charizard:leechseed,flamethrower,rest:80",
        "snorlax:rest,bodyslam,toxic:80;jolteon:toxic,leechseed,thunderbolt:80;"
        "exeggutor:leechseed,rest,psychic:80;arcanine:flamethrower,rest,toxic:80",
        ["|tox", "|-start|", "Leech Seed", "[from] Leech Seed", "-immune",
         "Leech Seed's damage is affected by Toxic's counter"]),
    "haze": (
        "weezing:haze,toxic,sludge:80;golbat:haze,confuseray,wingattack:80;"
        "vaporeon:haze,acidarmor,surf,rest:80;jynx:lovelykiss,blizzard:80",
        "slowbro:amnesia,surf,thunderwave:80;snorlax:amnesia,bodyslam,rest:80;"
        "alakazam:reflect,psychic,recover,disable:80;muk:toxic,sludge,minimize:80",
        # a sleeping foe's silent cure: its side then selects ``cannotmove``
        ["move: Haze", "-clearallboost", "|slp|[silent]"]),
    "ohko": (
        "dugtrio:fissure,slash:80;kingler:guillotine,crabhammer:80;"
        "rhydon:horndrill,fissure,substitute:80;lapras:horndrill,blizzard:80",
        "pidgeot:agility,wingattack:80;gengar:nightshade,hypnosis:80;tauros:bodyslam,horndrill:80;"
        "persian:slash,substitute:80;snorlax:fissure,counter:80",
        ["|-ohko", "[ohko]", "-immune"]),
    "thrash": (
        "nidoking:thrash,earthquake:80;primeape:thrash,submission:80;"
        "vileplume:petaldance,sleeppowder:80;marowak:thrash,bonemerang:80",
        "gengar:nightshade,confuseray:80;golem:earthquake,rockslide:80;"
        "starmie:thunderwave,surf:80;tauros:bodyslam,earthquake:80",
        # the lock's end confuses silently
        ["|Thrash|", "|Petal Dance|", "confusion|[silent]", "-immune"]),
    "dig_fly": (
        "dugtrio:dig,slash:80;pidgeot:fly,skyattack,wingattack:80;"
        "charizard:fly,dig,swordsdance:80;mew:dig,fly,transform:80",
        "fearow:fly,drillpeck,mirrormove:80;golem:dig,earthquake,explosion:80;"
        "persian:swift,slash:80;jolteon:thunderwave,pinmissile:80",
        ["-prepare", "can't be hit while invulnerable", "|Swift|"]),
    "bide": (
        "venusaur:bide,razorleaf,sleeppowder:80;blastoise:bide,surf:80;"
        "clefable:bide,bodyslam,thunderwave:80;raticate:bide,hyperfang:80",
        "tauros:bodyslam,hyperbeam,rage:80;alakazam:substitute,psychic,thunderwave:80;"
        "pidgeot:fly,wingattack,mirrormove:80;gengar:nightshade,confuseray,hypnosis:80",
        # stored turns (-activate), the end with nothing stored (-fail) and with damage
        ["|Bide|", "-activate", "|-end|", "|-fail|"]),
    "trap": (
        "arbok:wrap,earthquake:80;cloyster:clamp,blizzard:80;ninetales:firespin,flamethrower:80;"
        "onix:bind,rockslide:80;dragonite:wrap,hyperbeam:80",
        "tauros:bodyslam,hyperbeam:80;gengar:nightshade,hypnosis:80;"
        "alakazam:substitute,psychic:80;pidgeot:fly,wingattack:80;snorlax:bodyslam,rest:80",
        ["|Wrap|", "|Clamp|", "|Fire Spin|", "|Bind|", "|cant|", "partiallytrapped",
         "negate the recharge turn"]),
    "metronome": (
        "clefable:metronome:80;chansey:metronome,softboiled:80;mrmime:metronome,psychic:80;"
        "gengar:metronome,nightshade:80;snorlax:metronome,bodyslam:80;mew:metronome,transform:80",
        "alakazam:metronome,recover:80;hypno:metronome,psychic:80;clefairy:metronome:80;"
        "machamp:metronome,submission:80;electabuzz:metronome,thunderbolt:80;"
        "jynx:metronome,blizzard:80",
        ["|Metronome|", "[from] Metronome", "-prepare", "-hitcount"]),
}
BATTLES = 6


def _team(spec: str) -> str:
    sets = []
    for entry in spec.split(";"):
        species, moves, level = entry.split(":")
        sets.append(tm.PokemonSet(species=species, moves=tuple(moves.split(",")),
                                  level=int(level)))
    return tm.pack(sets)


@pytest.fixture(scope="module")
def replayed(showdown):
    """family -> [(trajectory, first divergence, decisions)], all replayed in one batch."""
    rng = np.random.default_rng(5)
    recorded = []
    for family, (p1, p2, _) in FAMILIES.items():
        teams = (_team(p1), _team(p2))
        for _ in range(BATTLES):
            words, policy = ([int(w) for w in rng.integers(0, 1 << 16, 4)] for _ in range(2))
            recorded.append((family, showdown.random_battle(words, teams, policy_seed=policy)))
    results = replay.replay_many([traj for _, traj in recorded])
    out = {family: [] for family in FAMILIES}
    for (family, traj), (divergence, decisions) in zip(recorded, results):
        out[family].append((traj, divergence, decisions))
    return out


@pytest.mark.parametrize("family", list(FAMILIES))
def test_move_family_matches_showdown(replayed, family):
    battles = replayed[family]
    for traj, divergence, _ in battles:
        assert divergence is None, f"seed {traj.seed}, teams {traj.teams}\n{divergence}"
    log = "\n".join(line for traj, _, _ in battles for r in traj.reports for line in r["log"])
    for fragment in FAMILIES[family][2]:
        assert fragment in log, f"{family}: no {fragment!r} in Showdown's logs"
    assert sum(decisions for _, _, decisions in battles) > 10 * BATTLES
