// Calls every operation through the SoapHttpClientProtocol proxies Mono's `wsdl` generated, as
// .NET Framework's wsdl.exe / "Add Web Reference" would: from the served WSDLs (Served.*) and from
// the legacy-shaped fixture (Legacy.*), SOAP 1.1 (Soap11) and SOAP 1.2 (Soap12). Checks the answers
// against the sample dataset (seeds/data), what went over the wire (content types, the action by
// ASMX's rule), the faults (SoapException whose detail holds ServiceError with its Code), and that
// SOAP 1.1, SOAP 1.2 and both WSDLs give the same answers. Run by scripts/interop-mono.sh:
//
//   mono interop.exe <base_url> <DevID> <DevKey> <namespace>
//
// Prints one line per check, then "N passed, M failed"; exits 1 when a check failed.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Web.Services.Protocols;
using System.Xml;
using System.Xml.Serialization;

class Failure : Exception
{
    public Failure(string message) : base(message) { }
}

static class Interop
{
    static int passed, failed;
    static string baseUrl, devKey, ns;
    static int devId;

    static readonly string[][] Endpoints = {
        new[] { "Weapons", "/api/weapons.asmx" },
        new[] { "Item", "/api/item.asmx" },
        new[] { "Hunting", "/API/hunting.asmx" },
        new[] { "Auction", "/api/auction.asmx" },
    };

    static void Check(bool ok, string message)
    {
        if (!ok) throw new Failure(message);
    }

    static void Report(string where, Func<string> run)
    {
        try
        {
            var detail = run();
            passed++;
            Console.WriteLine("ok   " + where + ": " + detail);
        }
        catch (Exception e)
        {
            failed++;
            Console.WriteLine("FAIL " + where + ": " + e.GetType().Name + ": " + e.Message);
        }
    }

    /// <summary>ASMX's SOAPAction: the namespace, then the operation, with a / between only when the namespace lacks one at its end.</summary>
    static string Action(string operation) => ns.EndsWith("/") ? ns + operation : ns + "/" + operation;

    static void CheckWire(bool soap12, string operation, int status)
    {
        var action = Action(operation);
        if (soap12)
        {
            Check(Wire.RequestContentType != null && Wire.RequestContentType.StartsWith("application/soap+xml"), "sent Content-Type " + Wire.RequestContentType);
            Check(Wire.RequestContentType.Contains("action=\"" + action + "\""), "sent Content-Type " + Wire.RequestContentType + " without action=\"" + action + "\"");
            Check(Wire.ResponseContentType == "application/soap+xml; charset=utf-8", "answer Content-Type " + Wire.ResponseContentType);
        }
        else
        {
            Check(Wire.RequestContentType != null && Wire.RequestContentType.StartsWith("text/xml"), "sent Content-Type " + Wire.RequestContentType);
            Check(Wire.SoapAction == "\"" + action + "\"", "sent SOAPAction " + Wire.SoapAction + ", expected \"" + action + "\"");
            Check(Wire.ResponseContentType == "text/xml; charset=utf-8", "answer Content-Type " + Wire.ResponseContentType);
        }
        Check(Wire.Status == status, "HTTP status " + Wire.Status + ", expected " + status);
    }

    static string Xml(object value)
    {
        if (value == null) return "(null)";
        var writer = new StringWriter();
        new XmlSerializer(value.GetType()).Serialize(writer, value);
        return writer.ToString();
    }

    static void CheckGlobals(dynamic[] globals, string key, int expected)
    {
        dynamic previous = null;
        foreach (var g in globals)
        {
            Check(g.TimeStamp is DateTime, "TimeStamp is not a DateTime");
            Check(g.GlobalValue is int && g.Player.IsTeam is bool && g.GlobalType.GlobalTypeID is int, "GlobalValue/IsTeam/GlobalTypeID types");
            Check(!string.IsNullOrEmpty(g.Monster.MonsterName) && g.Landarea.AreaName is string, "MonsterName/AreaName");
            int id = key == "MonsterID" ? g.Monster.MonsterID : key == "PlayerID" ? g.Player.PlayerID : g.Landarea.AreaID;
            Check(id == expected, "a global with " + key + " " + id + ", expected " + expected);
            if (previous != null)
            {
                DateTime a = ((DateTime)previous.TimeStamp).ToUniversalTime(), b = ((DateTime)g.TimeStamp).ToUniversalTime();
                Check(a > b || (a == b && previous.GlobalValue >= g.GlobalValue), "not newest first");
            }
            previous = g;
        }
    }

    static dynamic[] Records(object result) => result == null ? new dynamic[0] : ((Array)result).Cast<dynamic>().ToArray();

    static string CheckWeapons(object result)
    {
        var list = Records(result);
        Check(list.Length > 1, list.Length + " weapons, the sample data has more");
        Check(list.Select(w => (int)w.WeaponID).Distinct().Count() == list.Length, "repeated WeaponIDs");
        int withDamage = 0;
        foreach (var w in list)
        {
            Check(!string.IsNullOrEmpty(w.WeaponName), "weapon " + w.WeaponID + " without a name");
            foreach (var v in new object[] { w.MinHitLevel, w.MaxHitLevel, w.MinDmgLevel, w.MaxDmgLevel, w.Weight, w.Range, w.ImpactRadius, w.AttacksMin, w.Decay, w.TTValue, w.MinTTValue })
                Check(v is decimal, "weapon " + w.WeaponID + ": a decimal field is " + (v == null ? "null" : v.GetType().Name));
            Check(w.AmmoBurn is int && w.TotalUses is int && w.SIBWeapon is bool, "weapon " + w.WeaponID + ": int/bool fields");
            Check(w.HitProfession.ProfessionID is int && !string.IsNullOrEmpty(w.HitProfession.ProfessionName), "weapon " + w.WeaponID + ": HitProfession");
            Check(w.DmgProfession.ProfessionID is int && !string.IsNullOrEmpty(w.DmgProfession.ProfessionName), "weapon " + w.WeaponID + ": DmgProfession");
            var damage = Records(w.DamageTypes);
            foreach (var d in damage) Check(d.Damage is decimal && !string.IsNullOrEmpty(d.DamageTypeName), "weapon " + w.WeaponID + ": damage type");
            if (damage.Length > 0) withDamage++;
        }
        Check(withDamage > 0, "no weapon has damage types");
        return list.Length + " weapons, " + withDamage + " with damage types";
    }

    static string CheckItems(object result)
    {
        var list = Records(result);
        Check(list.Length > 1, list.Length + " items, the sample data has more");
        foreach (var i in list)
            Check(!string.IsNullOrEmpty(i.ItemName) && i.TTValue is decimal && i.Category.CategoryID is int, "item " + i.ItemID);
        return list.Length + " items";
    }

    static string CheckMonsters(object result)
    {
        var list = Records(result);
        var ids = list.Select(m => (int)m.MonsterID).ToList();
        Check(list.Length > 1 && ids.Distinct().Count() == ids.Count, "monsters missing or repeated");
        Check(ids.Contains(1) && ids.Contains(5), "monsters 1 and 5 missing");
        return list.Length + " monsters";
    }

    static string CheckMonster(object result)
    {
        dynamic m = result;
        Check(m != null && m.MonsterID == 1 && !string.IsNullOrEmpty(m.MonsterName), "not monster 1");
        return "monster 1 is \"" + m.MonsterName + "\"";
    }

    static Func<object, string> CheckGlobalsOf(string key, int id, int? count)
    {
        return result =>
        {
            var list = Records(result);
            if (count != null) Check(list.Length == count, list.Length + " globals, expected " + count);
            else Check(list.Length > 0 && list.Length <= 100, list.Length + " globals, expected 1 to 100");
            CheckGlobals(list, key, id);
            return list.Length + " globals with " + key + " " + id + ", newest " + ((DateTime)list[0].TimeStamp).ToUniversalTime().ToString("o");
        };
    }

    static string CheckCategories(object result)
    {
        var list = Records(result);
        Check(list.Length > 1, list.Length + " categories, the sample data has more");
        for (int i = 1; i < list.Length; i++) Check(list[i - 1].CategoryID < list[i].CategoryID, "not by CategoryID");
        return list.Length + " categories";
    }

    class Call
    {
        public string Service, Operation;
        public Func<dynamic, object> Invoke;
        public Func<object, string> Check;
    }

    static readonly Call[] Calls =
    {
        new Call { Service = "Weapons", Operation = "GetWeapons", Invoke = p => p.GetWeapons(devId, devKey, ""), Check = CheckWeapons },
        new Call { Service = "Item", Operation = "FindItems", Invoke = p => p.FindItems(devId, devKey, ""), Check = CheckItems },
        new Call { Service = "Hunting", Operation = "GetMonsters", Invoke = p => p.GetMonsters(devId, devKey, ""), Check = CheckMonsters },
        new Call { Service = "Hunting", Operation = "GetMonster", Invoke = p => p.GetMonster(devId, devKey, 1), Check = CheckMonster },
        new Call { Service = "Hunting", Operation = "GetMonsterGlobals", Invoke = p => p.GetMonsterGlobals(devId, devKey, 5, 10), Check = CheckGlobalsOf("MonsterID", 5, 10) },
        new Call { Service = "Hunting", Operation = "GetPlayerGlobals", Invoke = p => p.GetPlayerGlobals(devId, devKey, 777001, 3), Check = CheckGlobalsOf("PlayerID", 777001, 3) },
        new Call { Service = "Hunting", Operation = "GetLandareaGlobals", Invoke = p => p.GetLandareaGlobals(devId, devKey, 107), Check = CheckGlobalsOf("AreaID", 107, null) },
        new Call { Service = "Auction", Operation = "GetAuctionCategories", Invoke = p => p.GetAuctionCategories(devId, devKey), Check = CheckCategories },
    };

    /// <summary>The call fails with a SoapException whose detail holds ServiceError with this Code.</summary>
    static string Fault(bool soap12, string operation, Func<object> call, string code, int status)
    {
        try
        {
            call();
        }
        catch (SoapException e)
        {
            CheckWire(soap12, operation, status);
            var m = new XmlNamespaceManager(new NameTable());
            m.AddNamespace("t", ns);
            var error = e.Detail == null ? null : e.Detail.SelectSingleNode("t:ServiceError", m);
            Check(error != null, "no ServiceError in the detail: " + (e.Detail == null ? "no detail" : e.Detail.OuterXml));
            var got = error.SelectSingleNode("t:Code", m);
            Check(got != null && got.InnerText == code, "ServiceError Code " + (got == null ? "missing" : got.InnerText) + ", expected " + code);
            var faultCode = soap12 ? "Sender" : "Client";
            Check(e.Code.Name == faultCode || (soap12 && e.Code == SoapException.ClientFaultCode), "fault code " + e.Code + ", expected " + faultCode);
            return "SoapException " + e.Code.Name + ", ServiceError " + got.InnerText + " (" + e.Message + ")";
        }
        throw new Failure("no fault");
    }

    static int Main(string[] args)
    {
        if (args.Length != 4)
        {
            Console.Error.WriteLine("usage: interop.exe <base_url> <DevID> <DevKey> <namespace>");
            return 2;
        }
        baseUrl = args[0].TrimEnd('/');
        devId = int.Parse(args[1]);
        devKey = args[2];
        ns = args[3];
        Console.WriteLine("Mono " + Type.GetType("Mono.Runtime").GetMethod("GetDisplayName", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static).Invoke(null, null) + " against " + baseUrl + ", namespace " + ns);

        var answers = new Dictionary<string, string>();
        foreach (var source in new[] { "Served", "Legacy" })
        {
            foreach (var version in new[] { "Soap11", "Soap12" })
            {
                bool soap12 = version == "Soap12";
                foreach (var endpoint in Endpoints)
                {
                    string service = endpoint[0], path = endpoint[1];
                    string proxyName = source + "." + version + "." + service + "Ref." + service;
                    dynamic proxy = Activator.CreateInstance(Type.GetType(proxyName, true));
                    Report(proxyName + " proxy", () =>
                    {
                        Check(proxy.Url == baseUrl + path, "Url " + proxy.Url + ", expected " + baseUrl + path);
                        // a SOAP 1.1 proxy leaves SoapVersion at Default, which is SOAP 1.1
                        SoapProtocolVersion v = proxy.SoapVersion;
                        Check(soap12 ? v == SoapProtocolVersion.Soap12 : v != SoapProtocolVersion.Soap12, "SoapVersion " + v);
                        return "Url " + proxy.Url + ", " + proxy.SoapVersion;
                    });
                    foreach (var call in Calls.Where(c => c.Service == service))
                    {
                        string operation = call.Operation;
                        Report(proxyName + "." + operation, () =>
                        {
                            Wire.Clear();
                            object result = call.Invoke(proxy);
                            CheckWire(soap12, operation, 200);
                            var summary = call.Check(result);
                            var xml = Xml(result);
                            string first;
                            if (answers.TryGetValue(operation, out first)) Check(first == xml, "answer differs from Served.Soap11's");
                            else answers[operation] = xml;
                            return summary;
                        });
                    }
                    if (service == "Hunting")
                        Report(proxyName + ".GetMonster(unknown ID)", () => Fault(soap12, "GetMonster", () => proxy.GetMonster(devId, devKey, 987654321), "NotFound", soap12 ? 400 : 500));
                    if (service == "Auction")
                        Report(proxyName + ".GetAuctionCategories(wrong DevKey)", () => Fault(soap12, "GetAuctionCategories", () => proxy.GetAuctionCategories(devId, devKey + "x"), "AuthenticationFailed", soap12 ? 400 : 500));
                }
            }
        }
        Console.WriteLine(passed + " passed, " + failed + " failed");
        Console.Out.Flush();
        int code = failed == 0 ? 0 : 1;
        // Mono 6.8 can abort while its shutdown stops the HTTP stack's threads ("Assertion at
        // mono-threads.c:2005, condition `previous_token == NULL || previous_token ==
        // INTERRUPT_STATE'", SIGABRT; mono/mono#10832), after every check here has run and been
        // printed: the process ends without that shutdown.
        ExitProcess(code);
        return code;
    }

    [DllImport("libc", EntryPoint = "_exit")]
    static extern void ExitProcess(int status);
}
