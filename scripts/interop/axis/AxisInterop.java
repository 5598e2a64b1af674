// Calls every operation through the stubs Apache Axis 1.4's WSDL2Java generated from the served
// WSDLs with typed faults (`?wsdl=faults`, package svapi.axis, SOAP 1.1: Axis 1.4 has no SOAP 1.2)
// and checks the answers against the sample dataset (seeds/data), in the stubs' Java types, and that a fault arrives as the typed
// ServiceError with its Code. Run by scripts/interop-axis.sh; prints one line per check, then
// "N passed, M failed"; exits 1 when a check failed.

import java.math.BigDecimal;
import java.util.Calendar;
import java.util.HashSet;
import java.util.Set;
import svapi.axis.*;

public class AxisInterop {
    interface Call { String run() throws Exception; }
    interface Request { Object send() throws Exception; }

    static int passed = 0, failed = 0;

    static void check(boolean ok, String message) {
        if (!ok) throw new IllegalStateException(message);
    }

    static void report(String where, Call call) {
        try {
            String detail = call.run();
            passed++;
            System.out.println("ok   " + where + ": " + detail);
        } catch (Exception e) {
            failed++;
            System.out.println("FAIL " + where + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    static void checkGlobals(HuntingGlobal[] globals, String where, String key, int expected) {
        HuntingGlobal previous = null;
        for (HuntingGlobal g : globals) {
            Calendar t = g.getTimeStamp();
            check(t != null && t.getTimeZone().getRawOffset() == 0, where + ": TimeStamp not in UTC");
            check(g.getMonster() != null && g.getMonster().getMonsterName() != null && !g.getMonster().getMonsterName().isEmpty(), where + ": no MonsterName");
            check(g.getPlayer() != null && g.getLandarea() != null && g.getGlobalType() != null, where + ": a global without Player/Landarea/GlobalType");
            check(g.getLandarea().getAreaName() != null, where + ": no AreaName");
            int id = key.equals("MonsterID") ? g.getMonster().getMonsterID()
                    : key.equals("PlayerID") ? g.getPlayer().getPlayerID() : g.getLandarea().getAreaID();
            check(id == expected, where + ": a global with " + key + " " + id + ", expected " + expected);
            if (previous != null) {
                int c = previous.getTimeStamp().compareTo(t);
                check(c > 0 || (c == 0 && previous.getGlobalValue() >= g.getGlobalValue()), where + ": not newest first");
            }
            previous = g;
        }
    }

    static String fault(Request request, String expectedCode) throws Exception {
        try {
            request.send();
        } catch (ServiceError e) {
            check(expectedCode.equals(e.getCode()), "ServiceError Code " + e.getCode() + ", expected " + expectedCode);
            check(e.getMessage1() != null && !e.getMessage1().isEmpty(), "ServiceError without Message");
            return "typed ServiceError " + e.getCode() + " (" + e.getMessage1() + "), faultcode " + e.getFaultCode().getLocalPart();
        }
        throw new IllegalStateException("no fault");
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: AxisInterop <base_url> <DevID> <DevKey>");
            System.exit(2);
        }
        String base = args[0].replaceAll("/+$", "");
        int devId = Integer.parseInt(args[1]);
        String key = args[2];
        System.out.println(org.apache.axis.Version.getVersion().split("\n")[0] + " against " + base);

        WeaponsLocator weaponsLocator = new WeaponsLocator();
        Item_ServiceLocator itemLocator = new Item_ServiceLocator();
        HuntingLocator huntingLocator = new HuntingLocator();
        AuctionLocator auctionLocator = new AuctionLocator();
        report("addresses", () -> {
            String[][] pairs = {
                { weaponsLocator.getWeaponsSoapAddress(), base + "/api/weapons.asmx" },
                { itemLocator.getItemSoapAddress(), base + "/api/item.asmx" },
                { huntingLocator.getHuntingSoapAddress(), base + "/API/hunting.asmx" },
                { auctionLocator.getAuctionSoapAddress(), base + "/api/auction.asmx" },
            };
            for (String[] p : pairs) check(p[0].equals(p[1]), "address " + p[0] + ", expected " + p[1]);
            return "the four SOAP 1.1 ports at the service's address";
        });
        var weapons = weaponsLocator.getWeaponsSoap();
        var item = itemLocator.getItemSoap();
        var hunting = huntingLocator.getHuntingSoap();
        var auction = auctionLocator.getAuctionSoap();

        report("GetWeapons", () -> {
            Weapon[] list = weapons.getWeapons(devId, key, "");
            check(list != null && list.length > 1, "fewer than 2 weapons");
            Set<Integer> ids = new HashSet<>();
            int withDamage = 0;
            for (Weapon w : list) {
                check(ids.add(w.getWeaponID()), "repeated WeaponID " + w.getWeaponID());
                check(w.getWeaponName() != null && !w.getWeaponName().isEmpty(), "weapon " + w.getWeaponID() + " without a name");
                for (BigDecimal v : new BigDecimal[] { w.getMinHitLevel(), w.getMaxHitLevel(), w.getMinDmgLevel(), w.getMaxDmgLevel(), w.getWeight(),
                        w.getRange(), w.getImpactRadius(), w.getAttacksMin(), w.getDecay(), w.getTTValue(), w.getMinTTValue() }) {
                    check(v != null, "weapon " + w.getWeaponID() + ": a decimal field is missing");
                }
                check(w.getHitProfession() != null && w.getHitProfession().getProfessionName() != null, "weapon " + w.getWeaponID() + ": HitProfession");
                check(w.getDmgProfession() != null && w.getDmgProfession().getProfessionName() != null, "weapon " + w.getWeaponID() + ": DmgProfession");
                if (w.getDamageTypes() != null && w.getDamageTypes().length > 0) {
                    withDamage++;
                    for (DamageType d : w.getDamageTypes()) check(d.getDamage() != null && d.getDamageTypeName() != null, "weapon " + w.getWeaponID() + ": damage type");
                }
            }
            check(withDamage > 0, "no weapon has damage types");
            return list.length + " weapons, " + withDamage + " with damage types";
        });
        report("FindItems", () -> {
            Item_Type[] list = item.findItems(devId, key, "");
            check(list != null && list.length > 1, "fewer than 2 items");
            for (Item_Type i : list) {
                check(i.getItemName() != null && !i.getItemName().isEmpty(), "item " + i.getItemID() + " without a name");
                check(i.getTTValue() != null, "item " + i.getItemID() + " without TTValue");
                check(i.getCategory() != null && i.getCategory().getCategoryName() != null, "item " + i.getItemID() + " without Category");
            }
            return list.length + " items";
        });
        report("GetMonsters", () -> {
            Monster[] list = hunting.getMonsters(devId, key, "");
            check(list != null && list.length > 1, "fewer than 2 monsters");
            Set<Integer> ids = new HashSet<>();
            for (Monster m : list) check(ids.add(m.getMonsterID()) && m.getMonsterName() != null, "monster " + m.getMonsterID());
            check(ids.contains(1) && ids.contains(5), "monsters 1 and 5 missing");
            return list.length + " monsters";
        });
        report("GetMonster", () -> {
            Monster m = hunting.getMonster(devId, key, 1);
            check(m != null && m.getMonsterID() == 1 && m.getMonsterName() != null, "not monster 1");
            return "monster 1 is \"" + m.getMonsterName() + "\"";
        });
        report("GetMonsterGlobals", () -> {
            HuntingGlobal[] list = hunting.getMonsterGlobals(devId, key, 5, 10);
            check(list != null && list.length == 10, (list == null ? 0 : list.length) + " globals, expected 10");
            checkGlobals(list, "GetMonsterGlobals", "MonsterID", 5);
            return "10 globals of monster 5, newest " + list[0].getTimeStamp().toInstant();
        });
        report("GetPlayerGlobals", () -> {
            HuntingGlobal[] list = hunting.getPlayerGlobals(devId, key, 777001, 3);
            check(list != null && list.length == 3, (list == null ? 0 : list.length) + " globals, expected 3");
            checkGlobals(list, "GetPlayerGlobals", "PlayerID", 777001);
            return "3 globals of player 777001";
        });
        report("GetLandareaGlobals", () -> {
            HuntingGlobal[] list = hunting.getLandareaGlobals(devId, key, 107);
            check(list != null && list.length > 0 && list.length <= 100, "expected 1 to 100 globals");
            checkGlobals(list, "GetLandareaGlobals", "AreaID", 107);
            return list.length + " globals in area 107";
        });
        report("GetAuctionCategories", () -> {
            AuctionCategory[] list = auction.getAuctionCategories(devId, key);
            check(list != null && list.length > 1, "fewer than 2 categories");
            for (int i = 1; i < list.length; i++) check(list[i - 1].getCategoryID() < list[i].getCategoryID(), "not by CategoryID");
            return list.length + " categories";
        });
        report("GetMonster(unknown ID)", () -> fault(() -> hunting.getMonster(devId, key, 987654321), "NotFound"));
        report("GetAuctionCategories(wrong DevKey)", () -> fault(() -> auction.getAuctionCategories(devId, key + "x"), "AuthenticationFailed"));

        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
